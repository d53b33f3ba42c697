import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { childPointer, FieldError, isUuid, parseDateTime, ValidationError } from '@billing/shared-kernel';
import { BillableMetric, endsAt, startOfDayIn, Subscription, usageValue } from '../domain';
import { UsageRow, UsageStore } from '../usage/usage-store';
import { IngestUsageEventsCommand, UsageBatchResult, UsageEventResult, UsageEventStatus } from './ingest-usage-events.command';

export const MAX_USAGE_BATCH = 1000;
export const MAX_EVENT_ID_LENGTH = 255;
/** Events older than this (by their timestamp, against the environment's clock) are refused. */
export const USAGE_MAX_AGE_MS = 35 * 86_400_000;
/** Events later than this ahead of the environment's clock are refused. */
export const USAGE_MAX_AHEAD_MS = 5 * 60_000;
const EVENT_MEMBERS = ['id', 'subscriptionId', 'customerId', 'metricCode', 'timestamp', 'properties'];

interface ParsedEvent {
  readonly index: number;
  readonly id: string;
  readonly subscriptionId: string | null;
  readonly customerId: string | null;
  readonly metricCode: string;
  readonly occurredAt: Date;
  readonly properties: Record<string, unknown>;
}

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
 * POST /usage-events. The batch's shape is checked first: anything malformed
 * is a 422 for the whole batch (nothing recorded). Then each event on its own:
 * accepted, a duplicate of an id recorded before (counted once, whenever it is
 * sent again), or rejected with its index and a reason. The accepted ones are
 * one insert: one transaction per batch.
 */
@CommandHandler(IngestUsageEventsCommand)
export class IngestUsageEventsHandler implements ICommandHandler<IngestUsageEventsCommand, UsageBatchResult> {
  constructor(private readonly store: UsageStore) {}

  async execute({ environmentId, body, now }: IngestUsageEventsCommand): Promise<UsageBatchResult> {
    const events = parseBatch(body);
    const metrics = await this.store.metrics(environmentId, [...new Set(events.map((event) => event.metricCode))]);
    checkValues(events, metrics);
    const subscriptions = await this.store.subscriptions(environmentId, [...new Set(events.flatMap((event) => event.subscriptionId ?? []))]);
    const byCustomer = await this.store.subscriptionsOfCustomers(environmentId, [...new Set(events.flatMap((event) => event.customerId ?? []))]);

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
    const { inserted, existing } = await this.store.ingest(environmentId, [...first.values()], now);

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
  event: ParsedEvent,
  now: Date,
  metrics: Map<string, BillableMetric>,
  subscriptions: Map<string, Subscription>,
  byCustomer: Map<string, Subscription[]>,
  boundsOf: (subscription: Subscription) => ServiceBounds,
): UsageRow {
  const at = event.occurredAt.getTime();
  if (at > now.getTime() + USAGE_MAX_AHEAD_MS) throw new Rejection('timestamp-in-future', `timestamp is more than 5 minutes after the environment's now (${now.toISOString()})`);
  if (at < now.getTime() - USAGE_MAX_AGE_MS) throw new Rejection('timestamp-too-old', `timestamp is more than 35 days before the environment's now (${now.toISOString()})`);
  const metric = metrics.get(event.metricCode);
  if (!metric) throw new Rejection('unknown-metric', `no billable metric '${event.metricCode}' exists in this environment`);
  const bills = (subscription: Subscription) =>
    subscription.items.some((item) => item.schedule.purchase === 'recurring' && item.schedule.billingTiming === 'event_based' && item.schedule.metricCode === metric.code);
  let subscription: Subscription;
  if (event.subscriptionId !== null) {
    const found = subscriptions.get(event.subscriptionId);
    if (!found) throw new Rejection('unknown-subscription', `no subscription ${event.subscriptionId} exists in this environment`);
    if (!bills(found)) throw new Rejection('metric-not-on-subscription', `subscription ${found.id} has no item billing the metric '${metric.code}'`);
    subscription = found;
  } else {
    const candidates = (byCustomer.get(event.customerId!) ?? []).filter(bills);
    if (candidates.length === 0) throw new Rejection('unknown-subscription', `customer ${event.customerId} has no subscription (not ended) billing the metric '${metric.code}'`);
    if (candidates.length > 1) {
      throw new Rejection('ambiguous-customer', `customer ${event.customerId} has ${candidates.length} subscriptions billing '${metric.code}': send subscriptionId`);
    }
    subscription = candidates[0];
  }
  const { start, end } = boundsOf(subscription);
  if (at < start || (end !== null && at >= end)) {
    throw new Rejection('outside-service', `timestamp is outside the subscription's service (${new Date(start).toISOString()} to ${end === null ? 'open' : new Date(end).toISOString()})`);
  }
  if (subscription.status === 'ended' && (subscription.pendingBookings ?? []).length === 0) {
    throw new Rejection('subscription-ended', `subscription ${subscription.id} has ended and its final invoice is booked: no invoice is left to bill the event on`);
  }
  if (metric.field !== null) {
    const value = event.properties[metric.field];
    if (value === undefined || value === null) throw new Rejection('invalid-property', `properties.${metric.field} is required by the metric '${metric.code}' (${metric.aggregation})`);
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
function checkValues(events: readonly ParsedEvent[], metrics: Map<string, BillableMetric>): void {
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

/** The batch's shape: `{events: [1–1000 events]}`; every problem at its pointer, for the whole batch. */
function parseBatch(body: unknown): ParsedEvent[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'the request body must be a JSON object {"events": [...]}');
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) if (key !== 'events') errors.push({ pointer: `/${key}`, detail: 'is not a known property' });
  const list = (body as { events?: unknown }).events;
  if (!Array.isArray(list) || list.length < 1 || list.length > MAX_USAGE_BATCH) {
    errors.push({ pointer: '/events', detail: `is required: an array of 1 to ${MAX_USAGE_BATCH} usage events` });
    throw new ValidationError('The usage batch is invalid.', errors);
  }
  const events = list.map((raw: unknown, index): ParsedEvent | null => {
    const at = `/events/${index}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      errors.push({ pointer: at, detail: 'must be an object' });
      return null;
    }
    const e = raw as Record<string, unknown>;
    const before = errors.length;
    for (const key of Object.keys(e)) if (!EVENT_MEMBERS.includes(key)) errors.push({ pointer: `${at}/${key}`, detail: 'is not a known property' });
    if (typeof e.id !== 'string' || e.id.length < 1 || e.id.length > MAX_EVENT_ID_LENGTH) {
      errors.push({ pointer: `${at}/id`, detail: `is required: the event's idempotency id, 1 to ${MAX_EVENT_ID_LENGTH} characters` });
    }
    const hasSubscription = e.subscriptionId !== undefined && e.subscriptionId !== null;
    const hasCustomer = e.customerId !== undefined && e.customerId !== null;
    if (hasSubscription === hasCustomer) errors.push({ pointer: `${at}/subscriptionId`, detail: 'exactly one of subscriptionId and customerId is required' });
    if (hasSubscription && (typeof e.subscriptionId !== 'string' || !isUuid(e.subscriptionId))) errors.push({ pointer: `${at}/subscriptionId`, detail: 'must be a uuid' });
    if (hasCustomer && (typeof e.customerId !== 'string' || e.customerId.length < 1 || e.customerId.length > 255)) {
      errors.push({ pointer: `${at}/customerId`, detail: "must be the customer's id (1 to 255 characters)" });
    }
    if (typeof e.metricCode !== 'string' || e.metricCode.length < 1 || e.metricCode.length > 100) errors.push({ pointer: `${at}/metricCode`, detail: 'is required: a billable metric code' });
    const occurredAt = typeof e.timestamp === 'string' ? parseDateTime(e.timestamp) : null;
    if (occurredAt === null) errors.push({ pointer: `${at}/timestamp`, detail: 'is required: an RFC 3339 date-time with Z or an offset' });
    const properties = e.properties ?? {};
    if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) errors.push({ pointer: `${at}/properties`, detail: 'must be an object' });
    if (errors.length > before) return null;
    return {
      index,
      id: e.id as string,
      subscriptionId: hasSubscription ? (e.subscriptionId as string).toLowerCase() : null,
      customerId: hasCustomer ? (e.customerId as string) : null,
      metricCode: e.metricCode as string,
      occurredAt: occurredAt!,
      properties: properties as Record<string, unknown>,
    };
  });
  if (errors.length > 0) throw new ValidationError('The usage batch is invalid.', errors);
  return events as ParsedEvent[];
}
