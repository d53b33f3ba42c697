/**
 * When to retry an unsuccessful delivery. The interface promises exponential
 * backoff for up to 72 hours after the originating event, then the
 * notification is discarded. A delivery is a real-world side effect: all of
 * this is real time, counted from when the event was recorded (its
 * `recordedAt`), never from its `occurredAt`, which a test clock may put
 * years ahead.
 *
 * - Nominal delay before retry n (n = failed attempts so far, >= 1):
 *   30 s x 2^(n-1), capped at 6 h, so a receiver that is down for a day still
 *   gets a try every few hours rather than one every 36 h.
 * - Jitter: +-20 % of the nominal delay (uniform, from the caller's random
 *   number). Retries of many events failing at once then spread out instead of
 *   hitting a recovering receiver in lockstep, while each delay stays
 *   predictable enough to document. The cap applies before the jitter.
 * - Retry-After (seconds, from a 429/503) is honoured as a lower bound.
 * - A retry due strictly after recordedAt + 72 h is not scheduled (null); one
 *   due exactly at the cut-off still is.
 * Delays count from `now` (when the failure was observed), not from the
 * previous due time, so a slow receiver does not compress the schedule.
 */
export const RETRY_BASE_DELAY_SECONDS = 30;
export const RETRY_MAX_DELAY_SECONDS = 6 * 60 * 60;
export const RETRY_JITTER_RATIO = 0.2;
export const RETRY_WINDOW_SECONDS = 72 * 60 * 60;

export interface NextAttemptInput {
  /** When the originating event was recorded, on the real clock. */
  readonly recordedAt: Date;
  /** Failed attempts so far, >= 1. */
  readonly attempt: number;
  readonly now: Date;
  /** Uniform in [0, 1], supplied by the caller so this stays pure. */
  readonly random: number;
  readonly retryAfterSeconds?: number;
}

export function nominalDelaySeconds(attempt: number): number {
  if (!Number.isSafeInteger(attempt) || attempt < 1) throw new RangeError('attempt must be an integer >= 1');
  // Compare exponents first: 2^(attempt-1) overflows to Infinity for large attempts.
  if (attempt - 1 >= Math.log2(RETRY_MAX_DELAY_SECONDS / RETRY_BASE_DELAY_SECONDS)) return RETRY_MAX_DELAY_SECONDS;
  return RETRY_BASE_DELAY_SECONDS * 2 ** (attempt - 1);
}

export function retryCutoff(recordedAt: Date): Date {
  return new Date(recordedAt.getTime() + RETRY_WINDOW_SECONDS * 1000);
}

/** The due time of the next attempt, or null to give up. */
export function nextAttemptAt(input: NextAttemptInput): Date | null {
  const { recordedAt, attempt, now, random, retryAfterSeconds } = input;
  if (!(random >= 0 && random <= 1)) throw new RangeError('random must be within [0, 1]');
  const jitter = 1 + RETRY_JITTER_RATIO * (2 * random - 1);
  let delayMs = Math.round(nominalDelaySeconds(attempt) * jitter * 1000);
  // A malformed or negative Retry-After is ignored rather than trusted.
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0) {
    delayMs = Math.max(delayMs, Math.ceil(retryAfterSeconds * 1000));
  }
  const due = now.getTime() + delayMs;
  return due > retryCutoff(recordedAt).getTime() ? null : new Date(due);
}

export interface NominalRetry {
  /** 1 is the first retry (the initial delivery is attempt 0, at the event). */
  readonly retry: number;
  readonly delaySeconds: number;
  /** Seconds after the event, assuming every attempt fails instantly and without jitter. */
  readonly atSeconds: number;
}

/** The nominal retry table for documentation. */
export function nominalRetrySchedule(): NominalRetry[] {
  const schedule: NominalRetry[] = [];
  let at = 0;
  for (let retry = 1; ; retry++) {
    const delaySeconds = nominalDelaySeconds(retry);
    if (at + delaySeconds > RETRY_WINDOW_SECONDS) return schedule;
    at += delaySeconds;
    schedule.push({ retry, delaySeconds, atSeconds: at });
  }
}
