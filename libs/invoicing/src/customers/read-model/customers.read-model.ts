import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { queryRows } from '@billing/event-store';
import {
  filterConditions,
  invalidPageToken,
  keysetPage,
  Page,
  pageTokenCodec,
  parseLimit,
  positionPageToken,
  readQuery,
  tokenField,
  Versioned,
} from '@billing/platform';
import { isUuid } from '@billing/shared-kernel';
import { Customer } from '../../domain';
import { CustomerView, toCustomerView } from './customer-view';
import { BalanceTransactionView } from './balance-transaction-view';
import { CustomerOrderField, CustomerQuery, CUSTOMER_ORDER_BY } from './customer-query';

const COLUMNS = { email: 'email', handle: 'handle', status: 'status', createdAt: 'created_at' } as const;
const ORDER_COLUMNS: Readonly<Record<CustomerOrderField, string | null>> = { id: null, createdAt: 'created_at', handle: 'handle collate "C"' };

/** Where a page ended: the order it was read in, the last row's order value (as text) and id. */
const PAGE_TOKEN = pageTokenCodec({ order: tokenField.oneOf(CUSTOMER_ORDER_BY), value: tokenField.text(255), id: tokenField.uuid });

/** Reads of the `customers` read model (every query scoped by environment). */
@Injectable()
export class CustomersReadModel {
  constructor(private readonly dataSource: DataSource) {}

  async customer(environmentId: string, id: string): Promise<Versioned<CustomerView> | null> {
    const [row] = await queryRows<{ state: Customer; version: number }>(
      this.dataSource.manager,
      `select state, version from customers where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row ? new Versioned(toCustomerView(row.state), row.version) : null;
  }

  /** The record itself (the payment method's token included): for the context's own commands and its query handler, never an answer. */
  async record(environmentId: string, id: string, manager?: EntityManager): Promise<Customer | null> {
    if (!isUuid(id)) return null;
    const [row] = await queryRows<{ state: Customer }>(
      manager ?? this.dataSource.manager,
      `select state from customers where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row?.state ?? null;
  }

  /** Filters combined with and (archived ones only when a filter names status); ordered by the field, then id; keyset paging bound to the order. */
  async list(environmentId: string, query: CustomerQuery): Promise<Page<CustomerView>> {
    const { params, where } = filterConditions(environmentId, query.filters, COLUMNS);
    if (!query.filters.some((filter) => filter.field === 'status')) where.push(`status = 'active'`);
    const column = ORDER_COLUMNS[query.orderBy.field];
    const direction = query.orderBy.descending ? 'desc' : 'asc';
    const order = `${query.orderBy.descending ? '-' : ''}${query.orderBy.field === 'id' ? 'Id' : query.orderBy.field === 'createdAt' ? 'CreatedAt' : 'Handle'}`;
    if (query.pageToken !== undefined) {
      const after = PAGE_TOKEN.decode(query.pageToken);
      if (after.order !== order) throw invalidPageToken(`was issued for orderBy ${after.order}: send the same orderBy to go on paging`);
      if (query.orderBy.field === 'createdAt' && !tokenField.instant(after.value)) throw invalidPageToken();
      const comparison = query.orderBy.descending ? '<' : '>';
      if (column === null) {
        params.push(after.id);
        where.push(`id ${comparison} $${params.length}::uuid`);
      } else {
        params.push(after.value, after.id);
        const cast = query.orderBy.field === 'createdAt' ? '::timestamptz' : ' collate "C"';
        where.push(`(${column}, id) ${comparison} ($${params.length - 1}${cast}, $${params.length}::uuid)`);
      }
    }
    params.push(query.limit + 1);
    const orderBy = column === null ? `id ${direction}` : `${column} ${direction}, id ${direction}`;
    const rows = await queryRows<{ id: string; handle: string; created_at: Date; state: Customer }>(
      this.dataSource.manager,
      `select id, handle, created_at, state from customers where ${where.join(' and ')} order by ${orderBy} limit $${params.length}`,
      params,
    );
    const value = (row: (typeof rows)[number]) =>
      query.orderBy.field === 'createdAt' ? row.created_at.toISOString() : query.orderBy.field === 'handle' ? row.handle : row.id;
    return keysetPage(rows, {
      limit: query.limit,
      codec: PAGE_TOKEN,
      key: (row) => ({ order, value: value(row), id: row.id }),
      item: (row) => toCustomerView(row.state),
    });
  }

  /** Booked invoices (not credit notes) made out to the customer with something still due. */
  async unsettledInvoices(environmentId: string, customerId: string): Promise<number> {
    const [row] = await queryRows<{ count: number }>(
      this.dataSource.manager,
      `select count(*)::int as count from invoices
        where environment_id = $1 and customer_id = $2 and status = 'booked' and type = 'invoice'
          and settlement_status in ('not_settled', 'under_settled')`,
      [environmentId, customerId],
    );
    return row.count;
  }

  /**
   * A page of the customer's balance transactions, newest first (by log
   * position); null when the environment has no such customer.
   */
  async balanceTransactions(environmentId: string, customerId: string, query: BalanceTransactionQuery): Promise<Page<BalanceTransactionView> | null> {
    if (!(await this.exists(environmentId, customerId))) return null;
    const after = query.pageToken === undefined ? null : positionPageToken.decode(query.pageToken).position;
    // Ordered by the bigint column: the text sent back (exact past 2^53) is named apart, so "9" never sorts after "13".
    const rows = await queryRows<{ position_text: string; view: BalanceTransactionView }>(
      this.dataSource.manager,
      `select position::text as position_text, view from customer_balance_transactions
        where environment_id = $1 and customer_id = $2 and ($3::bigint is null or position < $3::bigint)
        order by position desc limit $4`,
      [environmentId, customerId, after, query.limit + 1],
    );
    return keysetPage(rows, { limit: query.limit, codec: positionPageToken, key: (row) => ({ position: row.position_text }), item: (row) => row.view });
  }

  /** One balance transaction of the customer; null when there is none (or no such customer in the environment). */
  async balanceTransaction(environmentId: string, customerId: string, entryId: string): Promise<BalanceTransactionView | null> {
    const [row] = await queryRows<{ view: BalanceTransactionView }>(
      this.dataSource.manager,
      `select view from customer_balance_transactions where environment_id = $1 and customer_id = $2 and id = $3`,
      [environmentId, customerId, entryId],
    );
    return row?.view ?? null;
  }

  private async exists(environmentId: string, customerId: string): Promise<boolean> {
    const rows = await queryRows(this.dataSource.manager, `select 1 from customers where environment_id = $1 and id = $2`, [environmentId, customerId]);
    return rows.length > 0;
  }
}

/** GET /customers/{id}/balance-transactions: `limit` (1–100, 20) and `pageToken`. */
export interface BalanceTransactionQuery {
  readonly limit: number;
  readonly pageToken?: string;
}

export function parseBalanceTransactionQuery(query: Record<string, unknown>): BalanceTransactionQuery {
  const { limit, pageToken } = readQuery(query, ['limit', 'pageToken']);
  return { limit: parseLimit(limit), pageToken };
}
