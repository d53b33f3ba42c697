import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { BatchedLookup, CommandPath, queryRows } from '@billing/event-store';
import { isUuid } from '@billing/shared-kernel';
import { JsonText, keysetPage, Page, Versioned } from '@billing/platform';
import { InvoiceCustomer, InvoiceStatus, InvoiceType, ResolvedTax, SettlementStatus, taxCodeEvolver, TaxCodeState, TaxRegister, resolveTax } from '../domain';
import { taxCodeStream } from '../streams';
import { TaxRegisterReader } from '../tax-register';
import { InvoiceSummaryView, InvoiceView } from './invoice-view';
import { INVOICE_PAGE_TOKEN, TAX_CODE_PAGE_TOKEN } from './page-tokens';
import { TaxCodeView } from './tax-code-view';

export interface InvoiceFilter {
  readonly status?: InvoiceStatus;
  readonly type?: InvoiceType;
  readonly settlementStatus?: SettlementStatus;
  readonly customerId?: string;
}

/**
 * A draft made out to a customer record shows the record as it is now (the
 * `customers` read model's snapshot, joined when read), so a change of the
 * customer shows on its drafts at once without rewriting their rows; a
 * booked invoice shows the snapshot its booking froze. `i` is `invoices`.
 */
const CUSTOMER_OF_DRAFT = `left join customers c on i.status = 'draft' and c.environment_id = i.environment_id and c.id = i.customer_record_id`;
const VIEW_WITH_CURRENT_CUSTOMER = `case when c.id is null then i.view else jsonb_set(i.view, '{customer}', c.invoice_customer) end`;

interface ViewRow<View> {
  view: View;
  version: number;
}

interface InvoiceRow {
  environment_id: string;
  id: string;
  status: InvoiceView['status'];
  /** The view as Postgres prints it: the GET answers it as it is. */
  view: string;
  version: number;
  hosted_link_version: number;
}

/** An invoice's view as JSON text, with what its hosted link is made of. */
export interface InvoiceViewText {
  readonly json: JsonText;
  readonly id: string;
  readonly status: InvoiceView['status'];
  readonly hostedLinkVersion: number;
}

@Injectable()
export class InvoicingReadModel implements TaxRegisterReader {
  /** GET /invoices/{id} is the hottest read: concurrent ones share a statement. */
  private readonly invoiceRows = new BatchedLookup<{ environmentId: string; id: string }, InvoiceRow>(
    (keys) =>
      queryRows<InvoiceRow>(
        this.dataSource.manager,
        `select i.environment_id, i.id, i.status, (${VIEW_WITH_CURRENT_CUSTOMER})::text as view, i.version, i.hosted_link_version
           from unnest($1::uuid[], $2::uuid[]) as k(environment_id, id)
           join invoices i on i.environment_id = k.environment_id and i.id = k.id ${CUSTOMER_OF_DRAFT}`,
        [keys.map((key) => key.environmentId), keys.map((key) => key.id)],
      ),
    { key: ({ environmentId, id }) => `${environmentId}/${id}`, row: (row) => `${row.environment_id}/${row.id}` },
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly commands: CommandPath,
  ) {}

  /** The invoice's view as JSON text, with the version of its hosted page link (0 until a link is rotated). */
  async invoice(environmentId: string, id: string): Promise<Versioned<InvoiceViewText> | null> {
    // One malformed id must not fail the statement it would share with others.
    if (!isUuid(id)) return null;
    const row = await this.invoiceRows.load({ environmentId, id });
    return row
      ? new Versioned({ json: JsonText.ofObject(row.view), id: row.id, status: row.status, hostedLinkVersion: row.hosted_link_version }, row.version)
      : null;
  }

  /**
   * Newest first, keyset paging on (created_at desc, id desc). Items are
   * summaries: Postgres drops the lines and settlements before sending the
   * rows, so neither the page nor the service's memory grows with them.
   */
  async invoices(environmentId: string, filter: InvoiceFilter, limit: number, pageToken?: string): Promise<Page<InvoiceSummaryView>> {
    const params: unknown[] = [environmentId];
    const where = ['i.environment_id = $1'];
    const add = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`i.${column} = $${params.length}`);
    };
    add('status', filter.status);
    add('type', filter.type);
    add('settlement_status', filter.settlementStatus);
    add('customer_id', filter.customerId);
    if (pageToken !== undefined) {
      const after = INVOICE_PAGE_TOKEN.decode(pageToken);
      params.push(after.createdAt, after.id);
      where.push(`(i.created_at, i.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(limit + 1);
    const rows = await queryRows<{ id: string; created_at: Date; view: InvoiceSummaryView }>(
      this.dataSource.manager,
      `select i.id, i.created_at, ${VIEW_WITH_CURRENT_CUSTOMER} - 'items' - 'settlements' as view from invoices i ${CUSTOMER_OF_DRAFT}
        where ${where.join(' and ')} order by i.created_at desc, i.id desc limit $${params.length}`,
      params,
    );
    return keysetPage(rows, {
      limit,
      codec: INVOICE_PAGE_TOKEN,
      key: (row) => ({ createdAt: row.created_at.toISOString(), id: row.id }),
      item: (row) => row.view,
    });
  }

  /** The snapshot of a customer record as drafts show it (null: no such record). */
  async currentCustomer(environmentId: string, customerId: string): Promise<InvoiceCustomer | null> {
    const [row] = await queryRows<{ invoice_customer: InvoiceCustomer }>(
      this.dataSource.manager,
      `select invoice_customer from customers where environment_id = $1 and id = $2`,
      [environmentId, customerId],
    );
    return row?.invoice_customer ?? null;
  }

  async taxCode(environmentId: string, code: string): Promise<Versioned<TaxCodeView> | null> {
    const [row] = await queryRows<ViewRow<TaxCodeView>>(
      this.dataSource.manager,
      `select view, version from tax_codes where environment_id = $1 and code = $2`,
      [environmentId, code],
    );
    return row ? new Versioned(row.view, row.version) : null;
  }

  /** Ordered by code (byte order), keyset paging on code. */
  async taxCodes(environmentId: string, limit: number, pageToken?: string): Promise<Page<TaxCodeView>> {
    const params: unknown[] = [environmentId];
    let after = '';
    if (pageToken !== undefined) {
      params.push(TAX_CODE_PAGE_TOKEN.decode(pageToken).code);
      after = `and code collate "C" > $2 collate "C"`;
    }
    params.push(limit + 1);
    const rows = await queryRows<{ code: string; view: TaxCodeView }>(
      this.dataSource.manager,
      `select code, view from tax_codes where environment_id = $1 ${after} order by code collate "C" limit $${params.length}`,
      params,
    );
    return keysetPage(rows, { limit, codec: TAX_CODE_PAGE_TOKEN, key: (row) => ({ code: row.code }), item: (row) => row.view });
  }

  /** The register's current entries for these codes, as of the read model (or their streams, for codes it does not show). */
  async read(environmentId: string, codes: readonly string[], within?: EntityManager): Promise<TaxRegister> {
    const register = new Map<string, ResolvedTax>();
    if (codes.length === 0) return register;
    const rows = await queryRows<{ state: TaxCodeState }>(
      within ?? this.dataSource.manager,
      `select state from tax_codes where environment_id = $1 and code = any($2::text[])`,
      [environmentId, codes],
    );
    const found = new Set(rows.map(({ state }) => (state.status === 'none' ? '' : state.code)));
    // A code the read model does not show (yet) is looked for in its stream: a tax code that exists is never
    // refused because the read model lags the log (issue 41 #11). Only on a miss: an unknown code costs one read.
    const missing = [...new Set(codes)].filter((code) => !found.has(code));
    const loaded = await Promise.all(missing.map(async (code) => (await this.commands.load(taxCodeStream(environmentId, code), taxCodeEvolver, within)).state));
    for (const state of [...rows.map((row) => row.state), ...loaded]) if (state.status === 'active') register.set(state.code, resolveTax(state));
    return register;
  }
}
