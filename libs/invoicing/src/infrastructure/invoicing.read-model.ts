import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ValidationError } from '@billing/shared-kernel';
import { queryRows } from '@billing/event-store';
import { Page } from '@billing/platform';
import { InvoiceLineInput, InvoiceSummaryView, InvoiceView, NO_TAX, ResolvedTax, TaxRegister } from '../domain';
import { decodeInvoiceKey, decodeTaxCodeKey, encodeInvoiceKey, encodeTaxCodeKey } from './page-tokens';
import { TaxCodeView, Versioned } from './streams';

export interface InvoiceFilter {
  readonly status?: string;
  readonly type?: string;
  readonly settlementStatus?: string;
  readonly customerId?: string;
}

/** A line as it arrives in a request: the tax code named, not yet resolved. */
export type RequestedLine = Omit<InvoiceLineInput, 'tax'> & { readonly taxCode?: string | null };

interface InvoiceRow<View = InvoiceView> {
  view: View;
  version: number;
  created_at: Date;
  id: string;
}

interface TaxCodeRow {
  code: string;
  view: TaxCodeView;
  version: number;
}

/** Reads of the invoicing read models; every query is scoped by environment. */
@Injectable()
export class InvoicingReadModel {
  constructor(private readonly dataSource: DataSource) {}

  async invoice(environmentId: string, id: string): Promise<Versioned<InvoiceView> | null> {
    const [row] = await queryRows<InvoiceRow>(this.dataSource.manager, `select view, version from invoices where environment_id = $1 and id = $2`, [
      environmentId,
      id,
    ]);
    return row ? { view: row.view, version: row.version } : null;
  }

  /**
   * Newest first, keyset paging on (created_at desc, id desc). Items are
   * summaries: Postgres drops the lines and settlements before sending the
   * rows, so neither the page nor the service's memory grows with them.
   */
  async invoices(environmentId: string, filter: InvoiceFilter, limit: number, pageToken?: string): Promise<Page<InvoiceSummaryView>> {
    const params: unknown[] = [environmentId];
    const where = ['environment_id = $1'];
    const add = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    add('status', filter.status);
    add('type', filter.type);
    add('settlement_status', filter.settlementStatus);
    add('customer_id', filter.customerId);
    if (pageToken !== undefined) {
      const after = decodeInvoiceKey(pageToken);
      params.push(after.createdAt, after.id);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(limit + 1);
    const rows = await queryRows<InvoiceRow<InvoiceSummaryView>>(
      this.dataSource.manager,
      `select id, created_at, view - 'items' - 'settlements' as view from invoices where ${where.join(' and ')}
        order by created_at desc, id desc limit $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((row) => row.view),
      nextPageToken: rows.length > limit && last ? encodeInvoiceKey({ createdAt: last.created_at.toISOString(), id: last.id }) : null,
    };
  }

  async taxCode(environmentId: string, code: string): Promise<Versioned<TaxCodeView> | null> {
    const [row] = await queryRows<TaxCodeRow>(this.dataSource.manager, `select view, version from tax_codes where environment_id = $1 and code = $2`, [
      environmentId,
      code,
    ]);
    return row ? { view: row.view, version: row.version } : null;
  }

  /** Ordered by code (byte order), keyset paging on code. */
  async taxCodes(environmentId: string, limit: number, pageToken?: string): Promise<Page<TaxCodeView>> {
    const params: unknown[] = [environmentId];
    let after = '';
    if (pageToken !== undefined) {
      params.push(decodeTaxCodeKey(pageToken).code);
      after = `and code collate "C" > $2 collate "C"`;
    }
    params.push(limit + 1);
    const rows = await queryRows<TaxCodeRow>(
      this.dataSource.manager,
      `select code, view from tax_codes where environment_id = $1 ${after} order by code collate "C" limit $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map((row) => row.view), nextPageToken: rows.length > limit && last ? encodeTaxCodeKey({ code: last.code }) : null };
  }

  /**
   * The current entries of the environment's register for these codes (codes
   * it does not know are simply absent). Pass `manager` to read inside a
   * transaction, e.g. the projection's own: the register is then exactly as of
   * the events it has applied.
   */
  async taxRegister(environmentId: string, codes: readonly string[], manager?: EntityManager): Promise<TaxRegister> {
    const register = new Map<string, ResolvedTax>();
    if (codes.length === 0) return register;
    const rows = await queryRows<{ code: string; view: TaxCodeView }>(
      manager ?? this.dataSource.manager,
      `select code, view from tax_codes where environment_id = $1 and code = any($2::text[])`,
      [environmentId, codes],
    );
    for (const row of rows) register.set(row.code, { taxCode: row.view.code, taxable: row.view.taxable, taxRate: row.view.rate });
    return register;
  }

  /**
   * Resolves the tax code each requested line names against this environment's
   * register: no code means not taxed; an unknown code is a 422 at
   * `/items/<i>/taxCode` (all unknown codes are reported at once).
   */
  async resolveLines(environmentId: string, items: readonly RequestedLine[] | null | undefined, manager?: EntityManager): Promise<InvoiceLineInput[] | null | undefined> {
    if (items === null || items === undefined) return items;
    const codes = [...new Set(items.map((item) => item.taxCode).filter((code): code is string => typeof code === 'string'))];
    const known = await this.taxRegister(environmentId, codes, manager);
    const errors = items.flatMap((item, i) =>
      typeof item.taxCode === 'string' && !known.has(item.taxCode) ? [{ pointer: `/items/${i}/taxCode`, detail: `is not a tax code of this environment` }] : [],
    );
    if (errors.length > 0) throw new ValidationError('The request names an unknown tax code.', errors, 'unknown-tax-code');
    return items.map(({ taxCode, ...line }) => ({ ...line, tax: typeof taxCode === 'string' ? known.get(taxCode)! : NO_TAX }));
  }
}
