import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { childPointer, FieldError, ValidationError } from '@billing/shared-kernel';
import { BillableMetric, endsAt, startOfDayIn, Subscription, usageValue } from '../domain';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { UsageRow, UsageStore } from '../usage/usage-store';
import { IngestUsageEventsCommand, UsageBatchResult, UsageEventResult, UsageEventStatus } from './ingest-usage-events.command';
import { UsageEventInput } from './usage-batch';

/** Events older than this (by their timestamp, against the environment's clock) are refused. */
export const USAGE_MAX_AGE_MS = 35 * 86_400_000;
/** Events later than this ahead of the environment's clock are refused. */
export const USAGE_MAX_AHEAD_MS = 5 * 60_000;

/** The instants a subscription serves (ms): from its first day's start to its end (exclusive), or open. */
interface ServiceBounds {
  readonly start: number;
  readonly end: number | null;
}

class Rejection {
  constructor(
    readonly reason: string,
    readonly detail: string,
  ) {}
}

/**
 * POST /usage-events. The batch's shape was checked first (parseUsageBatch):
 * anything malformed is a 422 for the whole batch (nothing recorded). Then each event on its own:
 * accepted, a duplicate of an id recorded before (counted once, whenever it is
 * sent again), or rejected with its index and a reason. The accepted ones are
 * one insert: one transaction per batch.
 */
@CommandHandler(IngestUsageEventsCommand)
export class IngestUsageEventsHandler implements ICommandHandler<IngestUsageEventsCommand, UsageBatchResult> {
  constructor(
    private readonly commands: CommandPath,
    private readonly store: UsageStore,
    private readonly readModel: SubscriptionsReadModel,
  ) {}

  async execute({ environmentId, events, context }: IngestUsageEventsCommand): Promise<UsageBatchResult> {
    const now = context.meta.now;
    const { metrics, subscriptions, byCustomer } = await this.references(environmentId, events);
    checkValues(events, metrics);

    // Service bounds per subscription, computed once per batch (time-zone arithmetic is the costly part of checking an event).
    const bounds = new Map<string, ServiceBounds>();
    const boundsOf = (subscription: Subscription): ServiceBounds => {
      let found = bounds.get(subscription.id);
      if (!found) {
        found = { start: startOfDayIn(subscription.anchor, subscription.timeZone).getTime(), end: endsAt(subscription)?.getTime() ?? null };
        bounds.set(subscription.id, found);
      }
      return found;
    };
    const outcomes: (UsageRow | Rejection)[] = events.map((event) => {
      try {
        return check(event, now, metrics, subscriptions, byCustomer, boundsOf);
      } catch (error) {
        if (error instanceof Rejection) return error;
        throw error;
      }
    });
    // Within the batch, an id's first occurrence is the one recorded; later ones compare with it like with an earlier batch.
    const first = new Map<string, UsageRow>();
    for (const outcome of outcomes) if (!(outcome instanceof Rejection) && !first.has(outcome.id)) first.set(outcome.id, outcome);
    const { inserted, existing } = await this.commands.run(context, 'reject', (session) =>
      this.store.ingest(environmentId, [...first.values()], metrics, now, session.tx),
    );

    const claimed = new Set<string>();
    const results = outcomes.map((outcome, index): UsageEventResult => {
      const id = events[index].id;
      if (outcome instanceof Rejection) return { index, id, status: 'rejected', reason: outcome.reason, detail: outcome.detail };
      if (inserted.has(id) && !claimed.has(id)) {
        claimed.add(id);
        return { index, id, status: 'accepted', subscriptionId: outcome.subscriptionId };
      }
      const recorded = existing.get(id) ?? first.get(id)!;
      if (!sameEvent(recorded, outcome)) {
        return {
          index,
          id,
          status: 'rejected',
          reason: 'event-id-reused',
          detail: `an event with id '${id}' was recorded with another subscription, metric, timestamp or properties; the first one counts and this one is ignored`,
        };
      }
      return { index, id, status: 'duplicate', subscriptionId: recorded.subscriptionId };
    });
    const count = (status: UsageEventStatus) => results.filter((result) => result.status === status).length;
    return { accepted: count('accepted'), duplicates: count('duplicate'), rejected: count('rejected'), results };
  }

  /**
   * The metrics, subscriptions and customers' subscriptions the batch names, read again once the read model caught up
   * when one is missing (caughtUpOnMiss): an event naming something that exists in the log is never rejected because
   * the read model lags it (issue 41 #11).
   */
  private references(environmentId: string, events: readonly UsageEventInput[]) {
    const codes = [...new Set(events.map((event) => event.metricCode))];
    const subscriptionIds = [...new Set(events.flatMap((event) => event.subscriptionId ?? []))];
    const customerIds = [...new Set(events.flatMap((event) => event.customerId ?? []))];
    return this.readModel.caughtUpOnMiss(
      async () => ({
        metrics: await this.store.metrics(environmentId, codes),
        subscriptions: await this.store.subscriptions(environmentId, subscriptionIds),
        byCustomer: await this.store.subscriptionsOfCustomers(environmentId, customerIds),
      }),
      ({ metrics, subscriptions, byCustomer }) =>
        metrics.size === codes.length && subscriptions.size === subscriptionIds.length && customerIds.every((id) => byCustomer.has(id)),
    );
  }
}

function sameEvent(a: UsageRow, b: UsageRow): boolean {
  return (
    a.subscriptionId === b.subscriptionId &&
    a.metricCode === b.metricCode &&
    a.occurredAt.getTime() === b.occurredAt.getTime() &&
    canonicalJson(a.properties) === canonicalJson(b.properties)
  );
}

/** JSON with object members sorted (jsonb does not keep member order). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function check(
  event: UsageEventInput,
  now: Date,
  metrics: Map<string, BillableMetric>,
  subscriptions: Map<string, Subscription>,
  byCustomer: Map<string, Subscription[]>,
  boundsOf: (subscription: Subscription) => ServiceBounds,
): UsageRow {
  const at = event.occurredAt.getTime();
  if (at > now.getTime() + USAGE_MAX_AHEAD_MS)
    throw new Rejection('timestamp-in-future', `timestamp is more than 5 minutes after the environment's now (${now.toISOString()})`);
  if (at < now.getTime() - USAGE_MAX_AGE_MS)
    throw new Rejection('timestamp-too-old', `timestamp is more than 35 days before the environment's now (${now.toISOString()})`);
  const metric = metrics.get(event.metricCode);
  if (!metric) throw new Rejection('unknown-metric', `no billable metric '${event.metricCode}' exists in this environment`);
  const bills = (subscription: Subscription) =>
    subscription.items.some(
      (item) => item.schedule.purchase === 'recurring' && item.schedule.billingTiming === 'event_based' && item.schedule.metricCode === metric.code,
    );
  let subscription: Subscription;
  if (event.subscriptionId !== null) {
    const found = subscriptions.get(event.subscriptionId);
    if (!found) throw new Rejection('unknown-subscription', `no subscription ${event.subscriptionId} exists in this environment`);
    if (!bills(found)) throw new Rejection('metric-not-on-subscription', `subscription ${found.id} has no item billing the metric '${metric.code}'`);
    subscription = found;
  } else {
    const candidates = (byCustomer.get(event.customerId!) ?? []).filter(bills);
    if (candidates.length === 0)
      throw new Rejection('unknown-subscription', `customer ${event.customerId} has no subscription (not ended) billing the metric '${metric.code}'`);
    if (candidates.length > 1) {
      throw new Rejection(
        'ambiguous-customer',
        `customer ${event.customerId} has ${candidates.length} subscriptions billing '${metric.code}': send subscriptionId`,
      );
    }
    subscription = candidates[0];
  }
  const { start, end } = boundsOf(subscription);
  if (at < start || (end !== null && at >= end)) {
    throw new Rejection(
      'outside-service',
      `timestamp is outside the subscription's service (${new Date(start).toISOString()} to ${end === null ? 'open' : new Date(end).toISOString()})`,
    );
  }
  if (subscription.status === 'ended' && (subscription.pendingBookings ?? []).length === 0) {
    throw new Rejection(
      'subscription-ended',
      `subscription ${subscription.id} has ended and its final invoice is booked: no invoice is left to bill the event on`,
    );
  }
  if (metric.field !== null) {
    const value = event.properties[metric.field];
    if (value === undefined || value === null)
      throw new Rejection('invalid-property', `properties.${metric.field} is required by the metric '${metric.code}' (${metric.aggregation})`);
    // A sum / max value itself was checked with the batch's shape (checkValues).
  }
  return { id: event.id, subscriptionId: subscription.id, metricCode: metric.code, occurredAt: event.occurredAt, properties: event.properties };
}

/**
 * The values a `sum` / `max` metric adds up, for the whole batch: one outside
 * the documented range or not written canonically (usageValue) makes the batch
 * a 422 at `/events/{index}/properties/{field}` and records nothing — stored, it
 * would fail every billing of its period.
 */
function checkValues(events: readonly UsageEventInput[], metrics: Map<string, BillableMetric>): void {
  const errors: FieldError[] = [];
  for (const event of events) {
    const metric = metrics.get(event.metricCode);
    if (!metric || metric.field === null || metric.aggregation === 'unique_count') continue;
    const value = event.properties[metric.field];
    if (value === undefined || value === null) continue; // a missing value is this event's rejection (invalid-property)
    const checked = usageValue(value);
    if ('problem' in checked) errors.push({ pointer: childPointer(`/events/${event.index}/properties`, metric.field), detail: checked.problem });
  }
  if (errors.length > 0) throw new ValidationError('The usage batch is invalid.', errors);
}
