import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, CallerContext, resourceDocs, ScopedClock } from '@billing/platform';
import { INTERVALS } from '../domain/intervals';
import { AnalyticsLinks, parseLinkBody } from '../page/analytics-links';
import { AnalyticsAnswers } from './analytics-answers';
import { AnalyticsLinkDto, CreateAnalyticsLinkDto, MrrDto, ReceivablesDto, RevenueDto } from './analytics.dto';

const INVALID_QUERY =
  'Invalid, repeated or unknown query parameter (pointer /query/<name>): from/to not dates or to not after from, an unknown interval or currency, ' +
  'asOf not a date-time or in the future, too many intervals, or no currency while several are in use';
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
/** A figure per interval of a range, in a currency, as of an instant. */
const PER_INTERVAL = { description: 'See README, Analytics.', queries: [...RANGE, CURRENCY, AS_OF], invalid: INVALID_QUERY };
const REVENUE = resourceDocs({ type: RevenueDto });
const MRR = resourceDocs({ type: MrrDto });
const RECEIVABLES = resourceDocs({ type: ReceivablesDto });
const LINK = resourceDocs({ type: AnalyticsLinkDto });
/** Revenue analytics (issue 28): read models built from the log, answered as of any past instant. */
@ApiTags('Analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(
    private readonly answers: AnalyticsAnswers,
    private readonly links: AnalyticsLinks,
    private readonly clock: ScopedClock,
  ) {}

  @Get('revenue')
  @REVENUE.read({ summary: 'Invoiced, collected, tax, discounts and credit notes per interval', ...PER_INTERVAL })
  async revenue(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<RevenueDto> {
    return this.answers.revenue(caller.environmentId, query);
  }

  @Get('mrr')
  @MRR.read({ summary: 'MRR per interval and the movements that explain it', ...PER_INTERVAL })
  async mrr(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<MrrDto> {
    return this.answers.mrr(caller.environmentId, query);
  }

  @Get('receivables')
  @RECEIVABLES.read({
    summary: 'Open amounts by age past the due date, and the 20 largest open invoices',
    description: 'See README, Analytics.',
    queries: [CURRENCY, AS_OF],
    invalid: INVALID_QUERY,
  })
  async receivables(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<ReceivablesDto> {
    return this.answers.receivables(caller.environmentId, query);
  }

  @Post('links')
  // 200, not 201: nothing is stored (the link is sealed, derived from the environment and its expiry).
  @LINK.create({
    status: 200,
    summary: 'A short-lived signed link to the analytics page (HTML charts) of this environment',
    description: 'A browser cannot send the bearer header: the link carries the environment and its expiry, sealed. See README, Analytics.',
    body: { type: CreateAnalyticsLinkDto, required: false },
    invalid: 'Invalid body: ttlSeconds not an integer from 1 to 86400, or an unknown property',
  })
  createLink(@Caller() caller: CallerContext, @Body() body: unknown): AnalyticsLinkDto {
    // Real time, not the environment's: a test clock advanced by years must neither expire a link at once nor keep
    // it open for ever.
    return this.links.create(caller.environmentId, this.clock.base.now(), parseLinkBody(body));
  }
}
