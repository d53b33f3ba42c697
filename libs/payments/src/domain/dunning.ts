import { FieldError, ValidationError } from '@billing/shared-kernel';

/**
 * Dunning: when to try collecting a booked invoice again after an automatic
 * charge failed.
 *
 * The schedule lists retries in days counted from the FIRST failed attempt
 * (the charge made when the invoice was booked): [1, 3, 5, 7] retries at +1,
 * +3, +5 and +7 days after it, five tries in all. Counting from the first
 * failure, not from each previous try, keeps the whole run to a known window
 * however late a worker picks a retry up: the last try is due 7 days after
 * the first failure, whatever happened in between. A due time already past
 * means "now". Days are 24-hour periods of elapsed time, not calendar days in
 * a time zone.
 *
 * Only a retryable failure (soft decline, gateway unreachable) is retried; a
 * hard decline ends collection at once. After the last failure
 * invoice.payment_failed is notified and the environment's `afterLastFailure`
 * setting says what else happens (AFTER_LAST_FAILURE).
 */

/**
 * What happens when a collection gives up (its last try failed, or a hard decline):
 * - `leave_open`: nothing more; the invoice stays booked, unsettled and payable;
 * - `mark_uncollectible`: the invoice is marked uncollectible (invoicing's command), still payable;
 * - `cancel_subscription`: the subscription is cancelled (subscriptions' cancel command: it ends at the end of its period).
 */
export const AFTER_LAST_FAILURE = ['leave_open', 'mark_uncollectible', 'cancel_subscription'] as const;
export type AfterLastFailure = (typeof AFTER_LAST_FAILURE)[number];
export const DEFAULT_AFTER_LAST_FAILURE: AfterLastFailure = 'leave_open';

/** An environment's `afterLastFailure` setting; absent: the default. */
export function validateAfterLastFailure(value: unknown, pointer = '/afterLastFailure'): AfterLastFailure {
  if (value === undefined) return DEFAULT_AFTER_LAST_FAILURE;
  if (typeof value !== 'string' || !(AFTER_LAST_FAILURE as readonly string[]).includes(value)) {
    throw ValidationError.at(pointer, `must be one of ${AFTER_LAST_FAILURE.join(', ')}`);
  }
  return value as AfterLastFailure;
}

export const DEFAULT_RETRY_DAYS: readonly number[] = Object.freeze([1, 3, 5, 7]);
export const MAX_RETRIES = 10;
/** Beyond two months a retry is no longer dunning but a new bill. */
export const MAX_RETRY_DAY = 60;
const DAY_MS = 86_400_000;

/**
 * When to try again after `failedAttempts` failed tries (>= 1; the n-th try
 * is the payment with attempt n), or null when the schedule is exhausted.
 * The next try is attempt failedAttempts + 1.
 */
export function nextCollectionAttempt(schedule: readonly number[], failedAttempts: number, firstFailureAt: Date): Date | null {
  if (!Number.isSafeInteger(failedAttempts) || failedAttempts < 1) throw new RangeError('failedAttempts must be an integer >= 1');
  if (failedAttempts > schedule.length) return null;
  return new Date(firstFailureAt.getTime() + schedule[failedAttempts - 1] * DAY_MS);
}

export type CollectionDecision =
  | { readonly kind: 'retry'; readonly attempt: number; readonly at: Date }
  | { readonly kind: 'give-up'; readonly reason: 'hard-decline' | 'schedule-exhausted' };

/**
 * What to do after automatic try `attempt` failed: retry (attempt + 1, at the
 * scheduled time) or give up, which is when invoice.payment_failed is sent.
 */
export function afterFailedCollection(
  schedule: readonly number[],
  failure: { readonly attempt: number; readonly retryable: boolean },
  firstFailureAt: Date,
): CollectionDecision {
  if (!failure.retryable) return { kind: 'give-up', reason: 'hard-decline' };
  const at = nextCollectionAttempt(schedule, failure.attempt, firstFailureAt);
  return at === null ? { kind: 'give-up', reason: 'schedule-exhausted' } : { kind: 'retry', attempt: failure.attempt + 1, at };
}

/**
 * An environment's retry schedule: 1 to 10 strictly increasing whole days
 * from 1 to 60. Every bad entry is reported at its own pointer.
 */
export function validateRetrySchedule(value: unknown, pointer = '/retryDays'): number[] {
  if (!Array.isArray(value)) throw ValidationError.at(pointer, `must be an array of 1 to ${MAX_RETRIES} days, e.g. [1, 3, 5, 7]`);
  if (value.length < 1 || value.length > MAX_RETRIES) {
    throw ValidationError.at(pointer, `must list 1 to ${MAX_RETRIES} retries; got ${value.length}`);
  }
  const errors: FieldError[] = [];
  let previous: number | null = null;
  value.forEach((day: unknown, index) => {
    const at = `${pointer}/${index}`;
    if (typeof day !== 'number' || !Number.isInteger(day) || day < 1 || day > MAX_RETRY_DAY) {
      errors.push({ pointer: at, detail: `must be a whole number of days from 1 to ${MAX_RETRY_DAY}` });
      return; // an invalid entry says nothing about the order of the next one
    }
    if (previous !== null && day <= previous) errors.push({ pointer: at, detail: `must be after the previous retry (day ${previous})` });
    previous = day;
  });
  if (errors.length > 0) throw new ValidationError(errors.length === 1 ? errors[0].detail : 'The retry schedule is invalid.', errors);
  return [...(value as number[])];
}
