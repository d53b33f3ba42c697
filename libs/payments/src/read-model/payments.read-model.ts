import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { InvoiceState, toInvoiceView } from '@billing/invoicing';
import { invalidPageToken, keysetPage, Page, pageTokenCodec, tokenField } from '@billing/platform';
import { isUuid } from '@billing/shared-kernel';
import { FilterOp, InvoiceFacts, OrderField, Payment, PaymentProvider, PaymentQuery } from '../domain';
import { PaymentProviderView, PaymentView, toPaymentView, toProviderView } from '../views';

const COLUMNS: Readonly<Record<PaymentQuery['filters'][number]['field'], string>> = {
  status: 'status',
  invoiceId: 'invoice_id',
  customerId: 'customer_id',
  provider: 'provider',
  currency: 'currency',
  amount: 'amount',
  createdAt: 'created_at',
};
const OPERATORS: Readonly<Record<FilterOp, string>> = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' };
const ORDER_COLUMNS: Readonly<Record<OrderField, string | null>> = { id: null, createdAt: 'created_at', amount: 'amount' };

/** Where a page ended: the order it was read in, the last row's order value (as text) and id. */
const PAGE_TOKEN = pageTokenCodec({
  order: tokenField.oneOf((Object.keys(ORDER_COLUMNS) as OrderField[]).flatMap((field) => [field, `-${field}`])),
  value: tokenField.text(40),
  id: tokenField.uuid,
});
type PageKey = ReturnType<typeof PAGE_TOKEN.decode>;

/** Reads of the payments context's own tables. */
@Injectable()
export class PaymentsReadModel {
  constructor(private readonly dataSource: DataSource) {}

  async payment(environmentId: string, id: string): Promise<{ payment: Payment; version: number } | null> {
    const [row] = await queryRows<{ state: Payment; version: number }>(this.dataSource.manager, `select state, version from payments where environment_id = $1 and id = $2`, [
      environmentId,
      id,
    ]);
    return row ? { payment: row.state, version: row.version } : null;
  }

  /** Filters combined with and; ordered by the field, then id; keyset paging whose token is bound to the order. */
  async list(environmentId: string, query: PaymentQuery): Promise<Page<PaymentView>> {
    const params: unknown[] = [environmentId];
    const where = ['environment_id = $1'];
    for (const filter of query.filters) {
      params.push(filter.field === 'createdAt' ? filter.value.toISOString() : filter.value);
      where.push(`${COLUMNS[filter.field]} ${OPERATORS[filter.op]} $${params.length}`);
    }
    const column = ORDER_COLUMNS[query.orderBy.field];
    const direction = query.orderBy.descending ? 'desc' : 'asc';
    const order = `${query.orderBy.descending ? '-' : ''}${query.orderBy.field}`;
    if (query.pageToken !== undefined) {
      const after = decodeKey(query.pageToken, order);
      const comparison = query.orderBy.descending ? '<' : '>';
      if (column === null) {
        params.push(after.id);
        where.push(`id ${comparison} $${params.length}::uuid`);
      } else {
        params.push(after.value, after.id);
        const cast = column === 'amount' ? 'bigint' : 'timestamptz';
        where.push(`(${column}, id) ${comparison} ($${params.length - 1}::${cast}, $${params.length}::uuid)`);
      }
    }
    params.push(query.limit + 1);
    const orderBy = column === null ? `id ${direction}` : `${column} ${direction}, id ${direction}`;
    // The amount's text gets its own name: `order by amount` must see the bigint column, not a select-list alias.
    const rows = await queryRows<{ id: string; amount_text: string; created_at: Date; state: Payment }>(
      this.dataSource.manager,
      `select id, amount::text as amount_text, created_at, state from payments where ${where.join(' and ')} order by ${orderBy} limit $${params.length}`,
      params,
    );
    const value = (row: (typeof rows)[number]) => (query.orderBy.field === 'amount' ? row.amount_text : query.orderBy.field === 'createdAt' ? row.created_at.toISOString() : row.id);
    return keysetPage(rows, { limit: query.limit, codec: PAGE_TOKEN, key: (row) => ({ order, value: value(row), id: row.id }), item: (row) => toPaymentView(row.state) });
  }

  async providers(environmentId: string): Promise<PaymentProviderView[]> {
    const rows = await queryRows<{ state: PaymentProvider }>(this.dataSource.manager, `select state from payment_providers where environment_id = $1 order by name`, [
      environmentId,
    ]);
    return rows.map((row) => toProviderView(row.state));
  }

  /** What invoicing's events say about the invoice: what a payment is checked against. */
  async invoiceFacts(environmentId: string, invoiceId: string): Promise<InvoiceFacts | null> {
    if (!isUuid(invoiceId)) return null;
    const [row] = await queryRows<{ state: InvoiceState }>(this.dataSource.manager, `select state from payment_invoice_facts where environment_id = $1 and id = $2`, [
      environmentId,
      invoiceId,
    ]);
    if (!row || row.state.status === 'none') return null;
    const view = toInvoiceView(row.state);
    return { invoiceId: view.id, status: view.status, type: view.type, currency: view.currency, customerId: view.customer.id, totalDue: view.totalDue };
  }

  /** Invoices of the environment whose collection has a try due at `now` (or one under way to look at). */
  async collectionsDue(environmentId: string, now: Date, limit: number): Promise<string[]> {
    const rows = await queryRows<{ invoice_id: string }>(
      this.dataSource.manager,
      `select invoice_id from payment_collections where environment_id = $1 and status in ('due', 'attempting') and next_attempt_at <= $2
        order by next_attempt_at limit $3`,
      [environmentId, now, limit],
    );
    return rows.map((row) => row.invoice_id);
  }

  /** Environments with collection work due by real time (`now`) or, with test clocks, by their own clock. */
  async environmentsWithCollections(now: Date, testClocks: boolean): Promise<string[]> {
    const rows = await queryRows<{ environment_id: string }>(
      this.dataSource.manager,
      testClocks
        ? `select distinct p.environment_id from payment_collections p left join environment_clocks c on c.environment_id = p.environment_id
            where p.status in ('due', 'attempting') and p.next_attempt_at <= coalesce(c.now, $1)`
        : `select distinct environment_id from payment_collections where status in ('due', 'attempting') and next_attempt_at <= $1`,
      [now],
    );
    return rows.map((row) => row.environment_id);
  }

  /** Payments still pending since before `cutoff` (their outcome was lost or unknown): for the resolver. */
  async pendingSince(cutoff: Date, limit: number): Promise<Array<{ environmentId: string; id: string }>> {
    const rows = await queryRows<{ environment_id: string; id: string }>(
      this.dataSource.manager,
      `select environment_id, id from payments where status = 'pending' and created_at < $1 order by created_at limit $2`,
      [cutoff, limit],
    );
    return rows.map((row) => ({ environmentId: row.environment_id, id: row.id }));
  }

  /** Payments with a refund asked of the gateway before `cutoff` whose outcome is still unknown. */
  async refundPendingSince(cutoff: Date, limit: number): Promise<Array<{ environmentId: string; id: string }>> {
    const rows = await queryRows<{ environment_id: string; id: string }>(
      this.dataSource.manager,
      `select environment_id, id from payments where refund_pending_since < $1 order by refund_pending_since limit $2`,
      [cutoff, limit],
    );
    return rows.map((row) => ({ environmentId: row.environment_id, id: row.id }));
  }
}

function decodeKey(token: string, order: string): PageKey {
  const key = PAGE_TOKEN.decode(token);
  if (key.order !== order) throw invalidPageToken(`was issued for orderBy ${key.order}: send the same orderBy to go on paging`);
  const valid = order.endsWith('amount') ? /^-?\d{1,16}$/.test(key.value) : order.endsWith('createdAt') ? tokenField.instant(key.value) : tokenField.uuid(key.value);
  if (!valid) throw invalidPageToken();
  return key;
}
