/** Latency figures shared by the load generators and the report. */

export interface LoadResult {
  /** Length of the measured window in seconds. */
  readonly seconds: number;
  /** Completed requests (any status) in the window. */
  readonly count: number;
  /** 2xx answers per second. */
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Completed requests by HTTP status ("ok" for the raw Postgres transactions). */
  readonly statuses: Record<string, number>;
  /** Answers that were not 2xx. */
  readonly non2xx: number;
  /** Answers with another status than the expected one (also counts 2xx that were not expected). */
  readonly unexpected: number;
  /** Socket errors, timeouts and failed transactions. */
  readonly errors: number;
  readonly timeouts: number;
  /** What produced the load (autocannon, pgbench, pg). */
  readonly tool: string;
  /** Free-form details (autocannon's own coordinated-omission-corrected p99 for rate-limited runs, the rate asked). */
  readonly notes?: Record<string, number | string>;
}

/** The q-quantile (0..1) of sorted values, nearest rank; rounded to 0.01. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round(sorted[rank] * 100) / 100;
}

/** Sorts a copy of the latencies numerically (Float64Array sorts numbers, not strings). */
export function sortedLatencies(latencies: readonly number[]): Float64Array {
  return Float64Array.from(latencies).sort();
}
