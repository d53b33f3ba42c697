import { CommandMetadata, ConflictError, DomainEvent, Evolver, FieldError, ValidationError, deciderOf } from '@billing/shared-kernel';
import { AGGREGATIONS, Aggregation } from './usage';

/**
 * Billable metrics (what usage events measure) and the environment's usage
 * settings, decider style. A metric's stream id is uuid v5 of (environment,
 * code), so a code is created once; metrics are never changed afterwards
 * (an aggregation that changed would re-rate periods already billed).
 */

export const METRIC_CODE = /^[A-Za-z0-9_.:-]{1,100}$/;
export const METRIC_NAME_MAX = 250;
/** A property name (a top-level member of an event's `properties`). */
export const METRIC_FIELD_MAX = 100;

export interface BillableMetricCreatedData {
  readonly metricId: string;
  readonly code: string;
  readonly name: string;
  readonly aggregation: Aggregation;
  /** The property aggregated; null for count. */
  readonly field: string | null;
  readonly createdAt: string;
}
export type BillableMetricCreated = DomainEvent<'BillableMetricCreated', BillableMetricCreatedData>;
export type BillableMetricEvent = BillableMetricCreated;

export interface BillableMetric {
  readonly status: 'active';
  readonly id: string;
  readonly code: string;
  readonly name: string;
  readonly aggregation: Aggregation;
  readonly field: string | null;
  readonly createdAt: string;
}
export type BillableMetricState = { readonly status: 'none' } | BillableMetric;

export const billableMetricEvolver: Evolver<BillableMetricState, BillableMetricEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type !== 'BillableMetricCreated' || state.status !== 'none') return state;
    const { metricId, ...data } = event.data;
    return { status: 'active', id: metricId, ...data };
  },
};

export interface CreateBillableMetric {
  readonly metricId: string;
  readonly body: unknown;
}

/** Validates the untrusted body (every problem at its pointer); a code taken is a 409 `billable-metric-exists`. */
export function decideCreateBillableMetric(command: CreateBillableMetric, state: BillableMetricState, meta: CommandMetadata): BillableMetricCreated[] {
  const input = validateMetricBody(command.body);
  if (state.status !== 'none') throw new ConflictError('billable-metric-exists', `a billable metric with the code '${input.code}' exists already`);
  return [{ type: 'BillableMetricCreated', schemaVersion: 1, data: { metricId: command.metricId, ...input, createdAt: meta.now.toISOString() } }];
}

export function validateMetricBody(body: unknown): Omit<BillableMetricCreatedData, 'metricId' | 'createdAt'> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'the request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of Object.keys(b))
    if (!['code', 'name', 'aggregation', 'field'].includes(key)) errors.push({ pointer: `/${key}`, detail: 'is not a known property' });
  if (typeof b.code !== 'string' || !METRIC_CODE.test(b.code)) errors.push({ pointer: '/code', detail: 'is required: 1 to 100 letters, digits, _ - . or :' });
  if (typeof b.name !== 'string' || b.name.length < 1 || [...b.name].length > METRIC_NAME_MAX)
    errors.push({ pointer: '/name', detail: `is required: 1 to ${METRIC_NAME_MAX} characters` });
  const aggregation = typeof b.aggregation === 'string' && (AGGREGATIONS as readonly string[]).includes(b.aggregation) ? (b.aggregation as Aggregation) : null;
  if (aggregation === null) errors.push({ pointer: '/aggregation', detail: `is required: one of ${AGGREGATIONS.join(', ')}` });
  let field: string | null = null;
  if (aggregation === 'count') {
    if (b.field !== undefined && b.field !== null) errors.push({ pointer: '/field', detail: 'is not allowed for count (it counts events)' });
  } else if (aggregation !== null) {
    if (typeof b.field !== 'string' || b.field.length < 1 || b.field.length > METRIC_FIELD_MAX) {
      errors.push({ pointer: '/field', detail: `is required for ${aggregation}: the name of the property aggregated (1 to ${METRIC_FIELD_MAX} characters)` });
    } else field = b.field;
  }
  if (errors.length > 0) throw new ValidationError('The billable metric is invalid.', errors);
  return { code: b.code as string, name: b.name as string, aggregation: aggregation!, field };
}

// ---------------------------------------------------------------- usage settings

/** Longest grace period: late events older than 35 days are refused anyway. */
export const MAX_GRACE_PERIOD_HOURS = 720;

export interface UsageSettingsChangedData {
  readonly usageGracePeriodHours: number;
  readonly changedAt: string;
}
export type UsageSettingsChanged = DomainEvent<'UsageSettingsChanged', UsageSettingsChangedData>;

export interface UsageSettings {
  readonly status: 'set';
  readonly usageGracePeriodHours: number;
  readonly updatedAt: string | null;
}
export type UsageSettingsState = { readonly status: 'none' } | UsageSettings;

export const DEFAULT_USAGE_SETTINGS: UsageSettings = { status: 'set', usageGracePeriodHours: 0, updatedAt: null };

export const usageSettingsEvolver: Evolver<UsageSettingsState, UsageSettingsChanged> = {
  initialState: () => ({ status: 'none' }),
  // Another event type (from a newer release) carries no settings: they stay as they were.
  evolve: (state, event) =>
    event.type === 'UsageSettingsChanged' ? { status: 'set', usageGracePeriodHours: event.data.usageGracePeriodHours, updatedAt: event.data.changedAt } : state,
};

/** `{usageGracePeriodHours}`: a whole number of hours 0–720. The same value again records nothing. */
export function decideSetUsageSettings(body: unknown, state: UsageSettingsState, meta: CommandMetadata): UsageSettingsChanged[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'the request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const errors: FieldError[] = Object.keys(b)
    .filter((key) => key !== 'usageGracePeriodHours')
    .map((key) => ({ pointer: `/${key}`, detail: 'is not a known property' }));
  const hours = b.usageGracePeriodHours;
  if (typeof hours !== 'number' || !Number.isInteger(hours) || hours < 0 || hours > MAX_GRACE_PERIOD_HOURS) {
    errors.push({ pointer: '/usageGracePeriodHours', detail: `is required: a whole number of hours from 0 to ${MAX_GRACE_PERIOD_HOURS}` });
  }
  if (errors.length > 0) throw new ValidationError('The usage settings are invalid.', errors);
  const current = state.status === 'none' ? DEFAULT_USAGE_SETTINGS : state;
  if (current.usageGracePeriodHours === hours && state.status !== 'none') return [];
  return [{ type: 'UsageSettingsChanged', schemaVersion: 1, data: { usageGracePeriodHours: hours as number, changedAt: meta.now.toISOString() } }];
}

/** The BillableMetric aggregate as one value: what it folds (billableMetricEvolver) and what each of its commands decides. */
export const billableMetricDecider = deciderOf(billableMetricEvolver, { CreateBillableMetric: decideCreateBillableMetric });

/** The usage settings of an environment as one value: what they fold (usageSettingsEvolver) and what setting them decides. */
export const usageSettingsDecider = deciderOf(usageSettingsEvolver, { SetUsageSettings: decideSetUsageSettings });
