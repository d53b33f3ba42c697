import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { divideRoundingHalfAwayFromZero, ValidationError } from '@billing/shared-kernel';
import { Period } from '../domain/intervals';
import { intervalMovements, MrrMovements } from '../domain/mrr';

/** What every answer is about: its currency (null when the environment has no money figures yet) and its as-of instant. */
export interface Scope {
  readonly environmentId: string;
  /** Uppercase ISO 4217, or null: none given and none in use. */
  readonly currency: string | null;
  readonly asOf: Date;
}

export interface RevenueFigures {
  readonly invoiced: number;
  readonly collected: number;
  readonly tax: number;
  readonly discounts: number;
  readonly creditNotes: number;
}

export interface MrrInterval extends MrrMovements {
  readonly start: string;
  readonly end: string;
  readonly startMrr: number;
  readonly mrr: number;
  readonly activeSubscriptions: number;
  readonly activeCustomers: number;
  readonly arpa: number;
  readonly usageRevenue: number;
}

export const AGE_BUCKETS = ['current', '1-30', '31-60', '61-90', 'over-90'] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number];

export interface OpenInvoice {
  readonly invoiceId: string;
  readonly handle: string | null;
  readonly customerId: string | null;
  readonly customerName: string | null;
  readonly date: string;
  readonly dueDate: string;
  readonly daysPastDue: number;
  readonly bucket: AgeBucket;
  readonly open: number;
}

export interface ReceivablesFigures {
  readonly buckets: Record<AgeBucket, number>;
  readonly total: number;
  readonly largest: OpenInvoice[];
}

/** How many of the largest open invoices a receivables answer lists. */
export const LARGEST_OPEN_INVOICES = 20;
const DAY_MS = 86_400_000;

/** Reads the analytics tables: every figure a sum over rows known (`known_at`, the event's time) by the as-of instant. */
@Injectable()
export class AnalyticsReadModel {
  constructor(private readonly dataSource: DataSource) {}

  /** The currencies with money figures or MRR known by `asOf`, uppercase, sorted. */
  async currenciesInUse(environmentId: string, asOf: Date): Promise<string[]> {
    const rows = await queryRows<{ currency: string }>(
      this.dataSource.manager,
      `select currency from analytics_ledger where environment_id = $1 and known_at <= $2
       union select currency from analytics_mrr_changes where environment_id = $1 and known_at <= $2 order by currency`,
      [environmentId, asOf],
    );
    return rows.map((row) => row.currency);
  }

  async revenue({ environmentId, currency, asOf }: Scope, periods: readonly Period[]): Promise<RevenueFigures[]> {
    const figures = periods.map(() => ({ invoiced: 0, collected: 0, tax: 0, discounts: 0, creditNotes: 0 }));
    if (currency === null || periods.length === 0) return figures;
    const rows = await queryRows<{ day: string } & Record<keyof RevenueFigures, string>>(
      this.dataSource.manager,
      `select to_char(day, 'YYYY-MM-DD') as day, sum(invoiced) as invoiced, sum(collected) as collected, sum(tax) as tax,
              sum(discounts) as discounts, sum(credit_notes) as "creditNotes"
         from analytics_ledger
        where environment_id = $1 and currency = $2 and day >= $3 and day < $4 and known_at <= $5
        group by day`,
      [environmentId, currency, periods[0].start, periods[periods.length - 1].end, asOf],
    );
    for (const row of rows) {
      const figure = figures[periodIndex(periods, row.day)];
      for (const name of ['invoiced', 'collected', 'tax', 'discounts', 'creditNotes'] as const) figure[name] += Number(row[name]);
    }
    return figures;
  }

  async receivables({ environmentId, currency, asOf }: Scope): Promise<ReceivablesFigures> {
    const buckets = Object.fromEntries(AGE_BUCKETS.map((bucket) => [bucket, 0])) as Record<AgeBucket, number>;
    if (currency === null) return { buckets, total: 0, largest: [] };
    const rows = await queryRows<{
      invoice_id: string;
      open: string;
      state: { handle: string | null; customerId: string | null; customer: { name: string | null }; date: string; dueDate: string | null };
    }>(
      this.dataSource.manager,
      `select l.invoice_id, l.open, i.state from (
          select invoice_id, sum(receivable) as open from analytics_ledger
           where environment_id = $1 and currency = $2 and invoice_id is not null and receivable <> 0 and known_at <= $3
           group by invoice_id having sum(receivable) > 0
        ) l join analytics_invoices i on i.environment_id = $1 and i.id = l.invoice_id`,
      [environmentId, currency, asOf],
    );
    const today = Math.floor(asOf.getTime() / DAY_MS);
    const open = rows.map(({ invoice_id, open, state }): OpenInvoice => {
      const dueDate = state.dueDate ?? state.date;
      const daysPastDue = today - Date.parse(`${dueDate}T00:00:00Z`) / DAY_MS;
      return {
        invoiceId: invoice_id,
        handle: state.handle,
        customerId: state.customerId ?? null,
        customerName: state.customer?.name ?? null,
        date: state.date,
        dueDate,
        daysPastDue: Math.max(daysPastDue, 0),
        bucket: bucketOf(daysPastDue),
        open: Number(open),
      };
    });
    for (const invoice of open) buckets[invoice.bucket] += invoice.open;
    const largest = open
      .sort((a, b) => b.open - a.open || (a.handle ?? '').localeCompare(b.handle ?? '') || a.invoiceId.localeCompare(b.invoiceId))
      .slice(0, LARGEST_OPEN_INVOICES);
    return { buckets, total: open.reduce((sum, invoice) => sum + invoice.open, 0), largest };
  }

  /**
   * MRR at each period's start and end and the movements between: each subscription's MRR at an instant is the one
   * its latest change before that instant recorded (known by `asOf`); customers' MRR are the sums of theirs.
   */
  async mrr({ environmentId, currency, asOf }: Scope, periods: readonly Period[]): Promise<MrrInterval[]> {
    const boundaries = [periods[0].start, ...periods.map((period) => period.end)].map((date) => new Date(`${date}T00:00:00Z`));
    const rows =
      currency === null
        ? []
        : await queryRows<{ subscription_id: string; customer_key: string; at: Date; mrr: string }>(
            this.dataSource.manager,
            `select subscription_id, customer_key, at, mrr from analytics_mrr_changes
              where environment_id = $1 and currency = $2 and at < $3 and known_at <= $4 order by at, position`,
            [environmentId, currency, boundaries[boundaries.length - 1], asOf],
          );
    const subscriptions = new Map<string, { customer: string; mrr: number }>();
    const everPositive = new Set<string>();
    const customers = new Map<string, { mrr: number[]; hadMrrBefore: boolean[] }>();
    const snapshots: { subscriptions: number; customers: number; mrr: number }[] = [];
    let next = 0;
    boundaries.forEach((boundary, index) => {
      for (; next < rows.length && rows[next].at.getTime() < boundary.getTime(); next++) {
        const row = rows[next];
        subscriptions.set(row.subscription_id, { customer: row.customer_key, mrr: Number(row.mrr) });
        if (Number(row.mrr) > 0) everPositive.add(row.customer_key);
        if (!customers.has(row.customer_key))
          customers.set(row.customer_key, { mrr: Array(boundaries.length).fill(0), hadMrrBefore: Array(boundaries.length).fill(false) });
      }
      const byCustomer = new Map<string, number>();
      let active = 0;
      for (const { customer, mrr } of subscriptions.values()) {
        if (mrr <= 0) continue;
        active += 1;
        byCustomer.set(customer, (byCustomer.get(customer) ?? 0) + mrr);
      }
      for (const [key, series] of customers) {
        series.mrr[index] = byCustomer.get(key) ?? 0;
        series.hadMrrBefore[index] = everPositive.has(key);
      }
      snapshots.push({ subscriptions: active, customers: byCustomer.size, mrr: [...byCustomer.values()].reduce((sum, mrr) => sum + mrr, 0) });
    });
    const movements = intervalMovements([...customers.values()], periods.length);
    const usage = await this.usageRevenue({ environmentId, currency, asOf }, periods);
    return periods.map((period, index) => {
      const end = snapshots[index + 1];
      return {
        start: period.start,
        end: period.end,
        startMrr: snapshots[index].mrr,
        mrr: end.mrr,
        ...movements[index],
        activeSubscriptions: end.subscriptions,
        activeCustomers: end.customers,
        arpa: end.customers === 0 ? 0 : Number(divideRoundingHalfAwayFromZero(BigInt(end.mrr), BigInt(end.customers))),
        usageRevenue: usage[index],
      };
    });
  }

  /** Per period, the usage charges billed on invoices dated in it (ledger-entries.ts, `usage`), known by `asOf`. */
  private async usageRevenue({ environmentId, currency, asOf }: Scope, periods: readonly Period[]): Promise<number[]> {
    const usage = periods.map(() => 0);
    if (currency === null) return usage;
    const rows = await queryRows<{ day: string; usage: string }>(
      this.dataSource.manager,
      `select to_char(day, 'YYYY-MM-DD') as day, sum(usage) as usage from analytics_ledger
        where environment_id = $1 and currency = $2 and day >= $3 and day < $4 and known_at <= $5 and usage <> 0
        group by day`,
      [environmentId, currency, periods[0].start, periods[periods.length - 1].end, asOf],
    );
    for (const row of rows) usage[periodIndex(periods, row.day)] += Number(row.usage);
    return usage;
  }
}

function periodIndex(periods: readonly Period[], day: string): number {
  let low = 0;
  let high = periods.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (periods[middle].start <= day) low = middle;
    else high = middle - 1;
  }
  return low;
}

function bucketOf(daysPastDue: number): AgeBucket {
  if (daysPastDue <= 0) return 'current';
  if (daysPastDue <= 30) return '1-30';
  if (daysPastDue <= 60) return '31-60';
  if (daysPastDue <= 90) return '61-90';
  return 'over-90';
}

/** A 422 at /query/currency when several currencies are in use and none was asked for. */
export function currencyRequired(inUse: readonly string[]): ValidationError {
  return ValidationError.at('/query/currency', `is required: this environment has figures in ${inUse.join(', ')}`);
}
