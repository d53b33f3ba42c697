import { divideRoundingHalfAwayFromZero } from '@billing/shared-kernel';

/**
 * Usage: what a period's usage events add up to, and what it costs.
 *
 * Quantities are integers scaled by 10^4 (like every quantity of the service):
 * a `sum` or `max` field carries at most 4 decimals and is never negative
 * (checked when the event is ingested). `count` and `unique_count` count whole
 * events or distinct values (n × 10^4).
 *
 * Pricing (decided): the period's whole quantity Q reaches the price's tiers,
 * packages or volume as one quantity — a price change never makes a customer
 * lose a tier — and each price version in force during the period bills the
 * share of Q that happened while it was in force: line i = round(P_i(Q) × q_i ÷ Q),
 * where q_i is attributed to the version in force at the event's timestamp:
 * - count / sum: the events (their values) of that time;
 * - unique_count: a distinct value counts when it is first seen;
 * - max: the whole Q, at the event that first reached the maximum.
 * With a single version this is exactly P(Q) (the catalog's pricing maths).
 * A period without usage bills P(0) at the version in force at its end (a
 * tiered price's first flat amount; 0 for fee and package).
 */

export const USAGE_SCALE = 4;
export const ONE_UNIT = 10n ** BigInt(USAGE_SCALE);

/**
 * The range of one event's `sum` / `max` value (decided): 0 to 10⁹ with at
 * most 4 decimals, written canonically — a JSON number, or a decimal string
 * without sign, padding, leading zeros or exponent ("12.5", never " 12.5",
 * "012.5", "+12.5" or "1.25e1"). Every such value is exact as a double and as a
 * scaled integer, and a period's quantity stays an exact decimal however many
 * events it adds up; a value outside it is refused at ingestion (422) rather
 * than stored to fail every billing of its period.
 */
export const MAX_USAGE_VALUE = 1_000_000_000;
const CANONICAL_DECIMAL = /^(0|[1-9]\d*)(\.\d{1,4})?$/;

/** A `sum` / `max` value as ingestion accepts it (scaled by 10^4), or why not: the detail of a 422 at the value's pointer. */
export function usageValue(value: unknown): { readonly scaled: bigint } | { readonly problem: string } {
  const problem = {
    problem: `must be a number from 0 to ${MAX_USAGE_VALUE} with at most ${USAGE_SCALE} decimals (a JSON number or a plain decimal string such as "12.5")`,
  };
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value > MAX_USAGE_VALUE) return problem;
    // Within the range a double prints without exponent except below 1e-6, which has more than 4 decimals anyway.
    text = String(Object.is(value, -0) ? 0 : value);
  } else if (typeof value === 'string') text = value;
  else return problem;
  const match = CANONICAL_DECIMAL.exec(text);
  if (!match) return problem;
  const scaled = BigInt(match[1] + (match[2] ?? '').slice(1).padEnd(USAGE_SCALE, '0'));
  return scaled > BigInt(MAX_USAGE_VALUE) * ONE_UNIT ? problem : { scaled };
}

export const AGGREGATIONS = ['count', 'sum', 'max', 'unique_count'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** One usage event as aggregation sees it. */
export interface UsageRecord {
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** The client's event id: ties of `at` are ordered by it, so attribution never depends on storage order. */
  readonly id: string;
  /** sum / max: the field's value scaled by 10^4; unique_count: the value's canonical JSON text; count: null. */
  readonly value: bigint | string | null;
}

/** The aggregated quantity (scaled by 10^4) of a set of events. */
export function aggregate(aggregation: Aggregation, records: readonly UsageRecord[]): bigint {
  return attribute(aggregation, records, () => 0).total;
}

/** A price version: in force from `from` (ms) until the next version's `from`. */
export interface PriceVersion<Version = unknown> {
  readonly from: number;
  readonly version: Version;
}

export interface RatedSegment<Version> {
  readonly version: Version;
  /** When this version took effect (ms). */
  readonly from: number;
  /** The share of the period's quantity attributed to this version (scaled by 10^4). */
  readonly quantity: bigint;
  readonly amount: bigint;
}

export interface RatedUsage<Version> {
  /** The period's aggregated quantity (scaled by 10^4). */
  readonly quantity: bigint;
  readonly amount: bigint;
  /** One per version that holds a share of the usage, in time order; exactly one when there is no usage. */
  readonly segments: readonly RatedSegment<Version>[];
}

/**
 * A period's aggregated quantity per price version (scaled by 10^4): key i is the share attributed to
 * versions[i] (the version in force at the event's time; an event before the first version counts for the first).
 * The usage store computes it in one SQL statement (`UsageStore.shares`); `attributeUsage` is its definition in
 * code, the oracle the store's integration test and the property tests compare with.
 */
export type UsageShares = ReadonlyMap<number, bigint>;

/** The index of the version in force at `at` (ms): the last whose `from` ≤ at, else the first. */
function versionIndexAt(versions: readonly PriceVersion[], at: number): number {
  let index = 0;
  for (let i = 1; i < versions.length && versions[i].from <= at; i++) index = i;
  return index;
}

/** The period's records aggregated and attributed to the versions in force at their times (sorted by `from`). */
export function attributeUsage(aggregation: Aggregation, records: readonly UsageRecord[], versions: readonly PriceVersion[]): UsageShares {
  return attribute(aggregation, records, (record) => versionIndexAt(versions, record.at)).shares;
}

/**
 * Rates a period's events against the price versions (sorted by `from`, at
 * least one). `price(version, quantity)` is the catalog's pricing maths of that
 * version for a whole quantity; `periodEnd` (ms, exclusive) chooses the version
 * of a period without usage. An event before the first version is rated at the
 * first one.
 */
export function rateUsage<Version>(
  aggregation: Aggregation,
  records: readonly UsageRecord[],
  versions: readonly PriceVersion<Version>[],
  periodEnd: number,
  price: (version: Version, quantity: bigint) => bigint,
): RatedUsage<Version> {
  return rateShares(attributeUsage(aggregation, records, versions), versions, periodEnd, price);
}

/** Rates a period's usage already attributed to the versions (see rateUsage). */
export function rateShares<Version>(
  shares: UsageShares,
  versions: readonly PriceVersion<Version>[],
  periodEnd: number,
  price: (version: Version, quantity: bigint) => bigint,
): RatedUsage<Version> {
  if (versions.length === 0) throw new RangeError('rateUsage needs at least one price version');
  let total = 0n;
  for (const [index, quantity] of shares) {
    if (!Number.isInteger(index) || index < 0 || index >= versions.length || quantity < 0n) throw new RangeError(`no share of version ${index}: ${quantity}`);
    total += quantity;
  }
  if (total === 0n) {
    const index = versionIndexAt(versions, periodEnd - 1);
    const amount = price(versions[index].version, 0n);
    return { quantity: 0n, amount, segments: [{ version: versions[index].version, from: versions[index].from, quantity: 0n, amount }] };
  }
  const segments = [...shares.entries()]
    .filter(([, quantity]) => quantity > 0n)
    .sort(([a], [b]) => a - b)
    .map(([index, quantity]) => {
      const { version, from } = versions[index];
      return { version, from, quantity, amount: divideRoundingHalfAwayFromZero(price(version, total) * quantity, total) };
    });
  return { quantity: total, amount: segments.reduce((sum, segment) => sum + segment.amount, 0n), segments };
}

/** The aggregated quantity and its attribution to the buckets `bucketOf` names (records in time order, ties by id). */
function attribute(
  aggregation: Aggregation,
  records: readonly UsageRecord[],
  bucketOf: (record: UsageRecord) => number,
): { total: bigint; shares: Map<number, bigint> } {
  const ordered = [...records].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const shares = new Map<number, bigint>();
  const add = (bucket: number, quantity: bigint) => shares.set(bucket, (shares.get(bucket) ?? 0n) + quantity);
  switch (aggregation) {
    case 'count':
      for (const record of ordered) add(bucketOf(record), ONE_UNIT);
      break;
    case 'sum':
      for (const record of ordered) add(bucketOf(record), record.value as bigint);
      break;
    case 'unique_count': {
      const seen = new Set<string>();
      for (const record of ordered) {
        const key = record.value as string;
        if (seen.has(key)) continue;
        seen.add(key);
        add(bucketOf(record), ONE_UNIT);
      }
      break;
    }
    case 'max': {
      let best: UsageRecord | null = null;
      for (const record of ordered) if (best === null || (record.value as bigint) > (best.value as bigint)) best = record;
      if (best !== null) add(bucketOf(best), best.value as bigint);
      break;
    }
  }
  let total = 0n;
  for (const quantity of shares.values()) total += quantity;
  return { total, shares };
}
