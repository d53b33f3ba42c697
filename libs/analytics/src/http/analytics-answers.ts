import { Injectable } from '@nestjs/common';
import { Clock, instant, oneOf, readQuery } from '@billing/platform';
import { isSupportedCurrency, validDate, ValidationError } from '@billing/shared-kernel';
import { ProjectionRunner } from '@billing/event-store';
import { Interval, INTERVALS, Period, periodsOf } from '../domain/intervals';
import { ANALYTICS_PROJECTION } from '../read-model/analytics.projection';
import { AnalyticsReadModel, currencyRequired, MrrInterval, ReceivablesFigures, RevenueFigures, Scope } from '../read-model/analytics.read-model';

export const RANGE_QUERY = ['from', 'to', 'interval', 'currency', 'asOf'] as const;
export type RangeQuery = Partial<Record<(typeof RANGE_QUERY)[number], string>>;

export interface AnswerScope {
  readonly currency: string | null;
  readonly asOf: string;
}
export interface RangeAnswer extends AnswerScope {
  readonly from: string;
  readonly to: string;
  readonly interval: Interval;
}
export type RevenueAnswer = RangeAnswer & { readonly intervals: (Period & RevenueFigures)[] };
export type MrrAnswer = RangeAnswer & { readonly intervals: MrrInterval[] };
export type ReceivablesAnswer = AnswerScope & ReceivablesFigures;
interface InRange {
  readonly scope: Scope;
  readonly range: { from: string; to: string; interval: Interval };
  readonly periods: Period[];
}

/**
 * The analytics answers of one environment from a query's parameters (validated: 422 at /query/<name>), for the JSON
 * endpoints and the page alike. Each first brings the read model to the head of the log (`caughtUpOnRead`): no write
 * waits for it, every read does.
 */
@Injectable()
export class AnalyticsAnswers {
  constructor(
    private readonly readModel: AnalyticsReadModel,
    private readonly clock: Clock,
    private readonly runner: ProjectionRunner,
  ) {}

  async revenue(environmentId: string, query: Record<string, unknown>): Promise<RevenueAnswer> {
    return this.revenueIn(await this.rangeOf(environmentId, readQuery(query, RANGE_QUERY)));
  }

  async mrr(environmentId: string, query: Record<string, unknown>): Promise<MrrAnswer> {
    return this.mrrIn(await this.rangeOf(environmentId, readQuery(query, RANGE_QUERY)));
  }

  async receivables(environmentId: string, query: Record<string, unknown>): Promise<ReceivablesAnswer> {
    return this.receivablesIn(await this.scopeOf(environmentId, readQuery(query, ['currency', 'asOf'] as const)));
  }

  /** The three answers to one already read query (the page's), with one catch-up and one scope. */
  async all(environmentId: string, q: RangeQuery): Promise<{ revenue: RevenueAnswer; mrr: MrrAnswer; receivables: ReceivablesAnswer }> {
    const range = await this.rangeOf(environmentId, q);
    return { revenue: await this.revenueIn(range), mrr: await this.mrrIn(range), receivables: await this.receivablesIn(range.scope) };
  }

  private async revenueIn({ scope, range, periods }: InRange): Promise<RevenueAnswer> {
    const figures = await this.readModel.revenue(scope, periods);
    return { ...answerScope(scope), ...range, intervals: periods.map((period, index) => ({ ...period, ...figures[index] })) };
  }

  private async mrrIn({ scope, range, periods }: InRange): Promise<MrrAnswer> {
    return { ...answerScope(scope), ...range, intervals: await this.readModel.mrr(scope, periods) };
  }

  private async receivablesIn(scope: Scope): Promise<ReceivablesAnswer> {
    return { ...answerScope(scope), ...(await this.readModel.receivables(scope)) };
  }

  private async rangeOf(environmentId: string, q: RangeQuery): Promise<InRange> {
    if (q.from === undefined) throw ValidationError.at('/query/from', 'is required: a date (YYYY-MM-DD)');
    if (q.to === undefined) throw ValidationError.at('/query/to', 'is required: a date (YYYY-MM-DD)');
    const from = validDate(q.from, '/query/from');
    const to = validDate(q.to, '/query/to');
    if (to <= from) throw ValidationError.at('/query/to', 'must be after from');
    const interval = oneOf('interval', q.interval, INTERVALS) ?? 'month';
    const periods = periodsOf(from, to, interval);
    return { scope: await this.scopeOf(environmentId, q), range: { from, to, interval }, periods };
  }

  private async scopeOf(environmentId: string, q: { currency?: string; asOf?: string }): Promise<Scope> {
    await this.runner.catchUp(ANALYTICS_PROJECTION);
    const now = this.clock.now();
    const asOf = instant('asOf', q.asOf) ?? now;
    if (asOf.getTime() > now.getTime()) throw ValidationError.at('/query/asOf', 'must not be in the future: a later answer could differ');
    if (q.currency !== undefined) {
      if (!isSupportedCurrency(q.currency.toLowerCase())) throw ValidationError.at('/query/currency', 'must be a supported ISO 4217 currency code, e.g. EUR');
      return { environmentId, currency: q.currency.toUpperCase(), asOf };
    }
    const inUse = await this.readModel.currenciesInUse(environmentId, asOf);
    if (inUse.length > 1) throw currencyRequired(inUse);
    return { environmentId, currency: inUse[0] ?? null, asOf };
  }
}

function answerScope(scope: Scope): AnswerScope {
  return { currency: scope.currency, asOf: scope.asOf.toISOString() };
}
