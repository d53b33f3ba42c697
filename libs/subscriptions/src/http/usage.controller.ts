import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CommandBus } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import {
  assertNoInput,
  Caller,
  CallerContext,
  Clock,
  commandContext,
  Page,
  parseLimit,
  readQuery,
  ResourceIdPipe,
  resourceDocs,
  Versioned,
} from '@billing/platform';
import { formatScaledDecimal, NotFoundError, parseDateTime, ValidationError } from '@billing/shared-kernel';
import { CancelledUsageEvent, CancelUsageEventCommand } from '../cancel-usage-event/cancel-usage-event.command';
import { CreateBillableMetricCommand } from '../create-billable-metric/create-billable-metric.command';
import { BillableMetric, DEFAULT_USAGE_SETTINGS, timelineAt, USAGE_SCALE, usageSettingsEvolver } from '../domain';
import { IngestUsageEventsCommand, UsageBatchResult } from '../ingest-usage-events/ingest-usage-events.command';
import { parseUsageBatch } from '../ingest-usage-events/usage-batch';
import { SetUsageSettingsCommand } from '../set-usage-settings/set-usage-settings.command';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { usageSettingsStream } from '../streams';
import {
  BillableMetricDto,
  BillableMetricPageDto,
  CancelledUsageEventDto,
  CreateBillableMetricBody,
  SubscriptionUsageDto,
  UsageBatchBody,
  UsageBatchResultDto,
  UsageSettingsBody,
  UsageSettingsDto,
} from './usage.dto';
import { periodInstants } from '../usage/period-rating';
import { UsageStore } from '../usage/usage-store';

const ETAG = { etag: { description: 'the version, for If-Match', schema: { type: 'string', example: '"1"' } } };
const METRIC = resourceDocs({
  type: BillableMetricDto,
  headers: ETAG,
  id: { name: 'code', description: 'the metric code (URL-encoded)' },
  notFound: 'No such metric in this environment',
});
const SETTINGS = resourceDocs({ type: UsageSettingsDto, headers: ETAG });
const EVENT = resourceDocs({
  type: CancelledUsageEventDto,
  id: { name: 'eventId', description: "the event's id as sent (URL-encoded)" },
  notFound: 'No usage event with this id in this environment',
});
const USAGE = resourceDocs({
  type: SubscriptionUsageDto,
  id: { name: 'subscriptionId', format: 'uuid' },
  notFound: 'No such subscription in this environment',
});

export type BillableMetricView = Omit<BillableMetric, 'status'>;
export interface UsageSettingsView {
  readonly usageGracePeriodHours: number;
  readonly updatedAt: string | null;
}

function metricView({ status: _status, ...metric }: BillableMetric): BillableMetricView {
  return metric;
}

/**
 * Usage-based billing's HTTP surface: billable metrics, the environment's
 * usage settings, usage ingestion and a subscription's usage so far. Bodies
 * arrive as they are and are validated by the domain (every problem with its
 * JSON pointer).
 */
@ApiTags('usage')
@Controller()
export class UsageController {
  constructor(
    private readonly bus: CommandBus,
    private readonly commands: CommandPath,
    private readonly store: UsageStore,
    private readonly subscriptions: SubscriptionsReadModel,
    private readonly clock: Clock,
  ) {}

  @Post('billable-metrics')
  @METRIC.create({
    summary: 'Create a billable metric',
    description: 'What usage events measure; an event_based price names it as its metricCode. A metric never changes once created.',
    body: CreateBillableMetricBody,
    answer: 'Created',
    conflict: 'The code exists already (billable-metric-exists)',
    invalid: 'Invalid body (every field error with its JSON pointer)',
  })
  async createMetric(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<BillableMetricView>> {
    const { id, version, state } = await this.bus.execute(new CreateBillableMetricCommand(caller.environmentId, body, commandContext(caller, this.clock)));
    return new Versioned(metricView(state), version, `/billable-metrics/${encodeURIComponent(id)}`);
  }

  @Get('billable-metrics')
  @METRIC.list({
    summary: 'List billable metrics',
    description: 'Ordered by code, keyset paged with an opaque pageToken.',
    answer: 'A page of metrics',
    type: BillableMetricPageDto,
  })
  async listMetrics(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<BillableMetricView>> {
    const q = readQuery(query, ['limit', 'pageToken']);
    const page = await this.store.listMetrics(caller.environmentId, parseLimit(q.limit), q.pageToken);
    return { items: page.items.map(metricView), nextPageToken: page.nextPageToken };
  }

  @Get('billable-metrics/:code')
  @METRIC.read({ summary: 'Get a billable metric', answer: 'The metric' })
  async getMetric(@Caller() caller: CallerContext, @Param('code') code: string): Promise<Versioned<BillableMetricView>> {
    const metric = await this.store.metric(caller.environmentId, code);
    if (!metric) throw new NotFoundError('billable metric', code);
    return new Versioned(metricView(metric), 1);
  }

  @Get('usage-settings')
  @SETTINGS.read({ summary: "The environment's usage settings", description: 'usageGracePeriodHours is 0 until set.', answer: 'The settings' })
  async getSettings(@Caller() caller: CallerContext): Promise<Versioned<UsageSettingsView>> {
    const { state, version } = await this.commands.load(usageSettingsStream(caller.environmentId), usageSettingsEvolver);
    return new Versioned(settingsView(state.status === 'none' ? DEFAULT_USAGE_SETTINGS : state), version);
  }

  @Put('usage-settings')
  @SETTINGS.write({
    summary: "Set the environment's usage settings",
    description:
      'usageGracePeriodHours (0–720): an invoice with usage stays a draft this long after its billAt, counting late events, and is booked then. Applies to invoices made from then on.',
    body: UsageSettingsBody,
    answer: 'The settings',
    invalid: 'Invalid body',
  })
  async setSettings(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<UsageSettingsView>> {
    const { version, state } = await this.bus.execute(new SetUsageSettingsCommand(caller.environmentId, body, commandContext(caller, this.clock)));
    return new Versioned(settingsView(state), version);
  }

  @Post('usage-events')
  @EVENT.create({
    status: 200,
    summary: 'Ingest a batch of usage events',
    description:
      '1–1000 events, recorded in one transaction. A malformed batch is a 422 and records nothing; otherwise 200 with a result per event (by index): ' +
      'accepted, duplicate (an id recorded before, by any request, ever: counted once) or rejected with a reason (unknown metric or subscription, ' +
      'timestamp outside −35 days … +5 minutes of the environment\'s now, an id recorded before with another body, …). See README "Usage-based billing".',
    body: UsageBatchBody,
    answer: 'A result per event',
    type: UsageBatchResultDto,
    invalid: 'A malformed batch (every problem with its pointer, e.g. /events/3/timestamp); nothing is recorded',
  })
  ingest(@Caller() caller: CallerContext, @Body() body: unknown): Promise<UsageBatchResult> {
    return this.bus.execute(new IngestUsageEventsCommand(caller.environmentId, parseUsageBatch(body), commandContext(caller, this.clock)));
  }

  @Post('usage-events/:eventId/cancel')
  @EVENT.write({
    summary: 'Cancel a usage event',
    description:
      'The event no longer counts (UsageEventCancelled on its subscription; the recorded event stays). Allowed while its period is open: not billed yet, ' +
      'or on a draft still in its usage grace period (re-rated when booked). Cancelling again answers the same cancellation. See README "Usage-based billing".',
    body: { required: false, schema: { type: 'object', additionalProperties: false, description: 'empty: {} or no body' } },
    answer: 'The cancelled event',
    conflict: "The event's period is billed on a booked invoice (usage-event-billed)",
    invalid: 'A body with any property',
  })
  cancelEvent(@Caller() caller: CallerContext, @Param('eventId') eventId: string, @Body() body: unknown): Promise<CancelledUsageEvent> {
    assertNoInput(body);
    return this.bus.execute(new CancelUsageEventCommand(caller.environmentId, eventId, commandContext(caller, this.clock)));
  }

  @Get('subscriptions/:subscriptionId/usage')
  @USAGE.read({
    summary: "A subscription's usage and what it would bill now",
    description:
      'Per event_based item (or the one of metricCode): the aggregated quantity in [from, to) and its amount, rated like the billing engine rates a period. ' +
      "from and to default to the item's current period.",
    queries: [
      { name: 'metricCode', required: false },
      { name: 'from', required: false, schema: { type: 'string', format: 'date-time' } },
      { name: 'to', required: false, schema: { type: 'string', format: 'date-time' } },
    ],
    answer: 'The usage',
    invalid: 'Invalid query: a metric the subscription does not bill, a bad date-time, to not after from',
  })
  async usage(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', new ResourceIdPipe('subscription')) subscriptionId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<SubscriptionUsageDto> {
    const q = readQuery(query, ['metricCode', 'from', 'to']);
    const from = q.from === undefined ? undefined : dateTime(q.from, 'from');
    const to = q.to === undefined ? undefined : dateTime(q.to, 'to');
    const found = await this.subscriptions.find(caller.environmentId, subscriptionId);
    if (!found) throw new NotFoundError('subscription', subscriptionId);
    const { subscription } = found;
    const usageItems = subscription.items.filter((item) => item.schedule.purchase === 'recurring' && item.schedule.billingTiming === 'event_based');
    const items =
      q.metricCode === undefined
        ? usageItems
        : usageItems.filter((item) => item.schedule.purchase === 'recurring' && item.schedule.metricCode === q.metricCode);
    if (q.metricCode !== undefined && items.length === 0)
      throw ValidationError.at('/query/metricCode', `the subscription has no item billing the metric '${q.metricCode}'`);
    const now = this.clock.now();
    const timeline = timelineAt(subscription, now);
    const result = [];
    for (const item of items) {
      const period = timeline.items.find((entry) => entry.itemId === item.id)!.period!;
      const current = periodInstants(subscription, period);
      const start = from ?? current.from;
      const end = to ?? current.to;
      if (end <= start) throw ValidationError.at(to === undefined ? '/query/from' : '/query/to', 'the range is empty: to must be after from');
      const { metric, rated, lines } = await this.store.rate(caller.environmentId, subscription, item, start, end);
      result.push({
        itemId: item.id,
        metricCode: metric.code,
        from: start.toISOString(),
        to: end.toISOString(),
        quantity: Number(formatScaledDecimal(rated.quantity, USAGE_SCALE)),
        amount: Number(rated.amount),
        currency: subscription.currency.toUpperCase(),
        segments: rated.segments.map((segment, index) => ({
          priceFrom: segment.version.effectiveAt,
          quantity: Number(formatScaledDecimal(segment.quantity, USAGE_SCALE)),
          amount: Number(segment.amount),
          lines: lines[index].map(({ component, discount, amount }) => ({
            kind: component.kind,
            tier: component.tier?.number ?? null,
            quantity: Number(formatScaledDecimal(component.quantity, USAGE_SCALE)),
            unitAmount: Number(component.unitAmount),
            discount: Number(discount),
            amount: Number(amount),
          })),
        })),
      });
    }
    return { subscriptionId, items: result };
  }
}

function settingsView(settings: { usageGracePeriodHours: number; updatedAt: string | null }): UsageSettingsView {
  return { usageGracePeriodHours: settings.usageGracePeriodHours, updatedAt: settings.updatedAt };
}

function dateTime(value: string, name: string): Date {
  const parsed = parseDateTime(value);
  if (parsed === null) throw ValidationError.at(`/query/${name}`, 'must be an RFC 3339 date-time with Z or an offset');
  return parsed;
}
