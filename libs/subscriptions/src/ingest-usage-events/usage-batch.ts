import { FieldError, isUuid, parseDateTime, ValidationError } from '@billing/shared-kernel';

export const MAX_USAGE_BATCH = 1000;
export const MAX_EVENT_ID_LENGTH = 255;
const EVENT_MEMBERS = ['id', 'subscriptionId', 'customerId', 'metricCode', 'timestamp', 'properties'];

/** One usage event of a POST /usage-events batch, its shape checked. */
export interface UsageEventInput {
  readonly index: number;
  readonly id: string;
  readonly subscriptionId: string | null;
  readonly customerId: string | null;
  readonly metricCode: string;
  readonly occurredAt: Date;
  readonly properties: Record<string, unknown>;
}

/** The batch's shape: `{events: [1–1000 events]}`; every problem at its pointer, for the whole batch. */
export function parseUsageBatch(body: unknown): UsageEventInput[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw ValidationError.at('', 'the request body must be a JSON object {"events": [...]}');
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) if (key !== 'events') errors.push({ pointer: `/${key}`, detail: 'is not a known property' });
  const list = (body as { events?: unknown }).events;
  if (!Array.isArray(list) || list.length < 1 || list.length > MAX_USAGE_BATCH) {
    errors.push({ pointer: '/events', detail: `is required: an array of 1 to ${MAX_USAGE_BATCH} usage events` });
    throw new ValidationError('The usage batch is invalid.', errors);
  }
  const events = list.map((raw: unknown, index): UsageEventInput | null => {
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
    if (hasSubscription && (typeof e.subscriptionId !== 'string' || !isUuid(e.subscriptionId)))
      errors.push({ pointer: `${at}/subscriptionId`, detail: 'must be a uuid' });
    if (hasCustomer && (typeof e.customerId !== 'string' || e.customerId.length < 1 || e.customerId.length > 255)) {
      errors.push({ pointer: `${at}/customerId`, detail: "must be the customer's id (1 to 255 characters)" });
    }
    if (typeof e.metricCode !== 'string' || e.metricCode.length < 1 || e.metricCode.length > 100)
      errors.push({ pointer: `${at}/metricCode`, detail: 'is required: a billable metric code' });
    const occurredAt = typeof e.timestamp === 'string' ? parseDateTime(e.timestamp) : null;
    if (occurredAt === null) errors.push({ pointer: `${at}/timestamp`, detail: 'is required: an RFC 3339 date-time with Z or an offset' });
    const properties = e.properties ?? {};
    if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
      errors.push({ pointer: `${at}/properties`, detail: 'must be an object' });
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
  return events as UsageEventInput[];
}
