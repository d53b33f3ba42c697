import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Caller, CallerContext, Clock, instant, oneOf, problemResponse, readQuery } from '@billing/platform';
import { isSupportedCurrency, validDate, ValidationError } from '@billing/shared-kernel';
import { ProjectionRunner } from '@billing/event-store';
import { Interval, INTERVALS, Period, periodsOf } from '../domain/intervals';
import { ANALYTICS_PROJECTION } from '../read-model/analytics.projection';
import { AnalyticsReadModel, currencyRequired, Scope } from '../read-model/analytics.read-model';
import { MrrDto, ReceivablesDto, RevenueDto } from './analytics.dto';

const INVALID_QUERY = {
  status: 422,
  ...problemResponse(
    'Invalid, repeated or unknown query parameter (pointer /query/<name>): from/to not dates or to not after from, an unknown interval or currency, ' +
      'asOf not a date-time or in the future, too many intervals, or no currency while several are in use',
  ),
};
const AS_OF = {
  name: 'asOf',
  required: false,
  description: 'RFC 3339 date-time with a zone (or a date: midnight UTC), not in the future: the answer as it was then, the same whenever asked. Default: now.',
  schema: { type: 'string', format: 'date-time' },
} as const;
const CURRENCY = {
  name: 'currency',
  required: false,
  description: 'ISO 4217, any case. Required when the environment has figures in several currencies; default: the one in use.',
  schema: { type: 'string', example: 'EUR' },
} as const;
const RANGE = [
  { name: 'from', required: true, description: 'First day (UTC), inclusive.', schema: { type: 'string', format: 'date' } },
  { name: 'to', required: true, description: 'Last day (UTC), exclusive; after from.', schema: { type: 'string', format: 'date' } },
  {
    name: 'interval',
    required: false,
    description: 'Calendar months, ISO weeks (Monday first) or days, in UTC. Default: month.',
    schema: { type: 'string', enum: [...INTERVALS], default: 'month' },
  },
] as const;
const RANGE_QUERY = ['from', 'to', 'interval', 'currency', 'asOf'] as const;

/** Revenue analytics (issue 28): read models built from the log, answered as of any past instant. */
@ApiTags('Analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(
    private readonly readModel: AnalyticsReadModel,
    private readonly clock: Clock,
    private readonly runner: ProjectionRunner,
  ) {}

  @Get('revenue')
  @ApiOperation({ summary: 'Invoiced, collected, tax, discounts and credit notes per interval', description: 'See README, Analytics.' })
  @ApiQuery(RANGE[0])
  @ApiQuery(RANGE[1])
  @ApiQuery(RANGE[2])
  @ApiQuery(CURRENCY)
  @ApiQuery(AS_OF)
  @ApiResponse({ status: 200, type: RevenueDto })
  @ApiResponse(INVALID_QUERY)
  async revenue(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<RevenueDto> {
    const { scope, range, periods } = await this.rangeOf(caller, query);
    const figures = await this.readModel.revenue(scope, periods);
    return { ...answerScope(scope), ...range, intervals: periods.map((period, index) => ({ ...period, ...figures[index] })) };
  }

  @Get('mrr')
  @ApiOperation({ summary: 'MRR per interval and the movements that explain it', description: 'See README, Analytics.' })
  @ApiQuery(RANGE[0])
  @ApiQuery(RANGE[1])
  @ApiQuery(RANGE[2])
  @ApiQuery(CURRENCY)
  @ApiQuery(AS_OF)
  @ApiResponse({ status: 200, type: MrrDto })
  @ApiResponse(INVALID_QUERY)
  async mrr(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<MrrDto> {
    const { scope, range, periods } = await this.rangeOf(caller, query);
    return { ...answerScope(scope), ...range, intervals: await this.readModel.mrr(scope, periods) };
  }

  @Get('receivables')
  @ApiOperation({ summary: 'Open amounts by age past the due date, and the 20 largest open invoices', description: 'See README, Analytics.' })
  @ApiQuery(CURRENCY)
  @ApiQuery(AS_OF)
  @ApiResponse({ status: 200, type: ReceivablesDto })
  @ApiResponse(INVALID_QUERY)
  async receivables(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<ReceivablesDto> {
    const q = readQuery(query, ['currency', 'asOf'] as const);
    const scope = await this.scopeOf(caller, q);
    return { ...answerScope(scope), ...(await this.readModel.receivables(scope)) };
  }

  private async rangeOf(
    caller: CallerContext,
    query: Record<string, unknown>,
  ): Promise<{ scope: Scope; range: { from: string; to: string; interval: Interval }; periods: Period[] }> {
    const q = readQuery(query, RANGE_QUERY);
    if (q.from === undefined) throw ValidationError.at('/query/from', 'is required: a date (YYYY-MM-DD)');
    if (q.to === undefined) throw ValidationError.at('/query/to', 'is required: a date (YYYY-MM-DD)');
    const from = validDate(q.from, '/query/from');
    const to = validDate(q.to, '/query/to');
    if (to <= from) throw ValidationError.at('/query/to', 'must be after from');
    const interval = oneOf('interval', q.interval, INTERVALS) ?? 'month';
    const periods = periodsOf(from, to, interval);
    return { scope: await this.scopeOf(caller, q), range: { from, to, interval }, periods };
  }

  /** Also brings the read model to the head of the log: no write waits for it (`caughtUpOnRead`), every read does. */
  private async scopeOf(caller: CallerContext, q: { currency?: string; asOf?: string }): Promise<Scope> {
    await this.runner.catchUp(ANALYTICS_PROJECTION);
    const now = this.clock.now();
    const asOf = instant('asOf', q.asOf) ?? now;
    if (asOf.getTime() > now.getTime()) throw ValidationError.at('/query/asOf', 'must not be in the future: a later answer could differ');
    if (q.currency !== undefined) {
      if (!isSupportedCurrency(q.currency.toLowerCase())) throw ValidationError.at('/query/currency', 'must be a supported ISO 4217 currency code, e.g. EUR');
      return { environmentId: caller.environmentId, currency: q.currency.toUpperCase(), asOf };
    }
    const inUse = await this.readModel.currenciesInUse(caller.environmentId, asOf);
    if (inUse.length > 1) throw currencyRequired(inUse);
    return { environmentId: caller.environmentId, currency: inUse[0] ?? null, asOf };
  }
}

function answerScope(scope: Scope) {
  return { currency: scope.currency, asOf: scope.asOf.toISOString() };
}
