import { CommandMetadata, ConflictError, ValidationError, addDays, isDueBy } from '@billing/shared-kernel';
import { AdvanceSubscription } from './billing-commands';
import { advanceCredit } from './billing-decisions';
import { nextDue, refuseBilledSince } from './billing';
import { validDate } from './calendar';
import { Pause, Subscription, SubscriptionState, existingSubscription, finalDay, isOverAt, resumedEvent, resumeInstant, trialRunning } from './subscription';
import { endedError } from './subscription-decisions';
import { SubscriptionPaused, SubscriptionResumed } from './subscription-events';
import { localDateOf } from './time-zone';

/**
 * Pause and resume (README: Pause and resume). The pause day — the local date of the request — is still
 * served; from the next day nothing is billed until the subscription resumes, by hand or at `resumeAt`
 * (the billing engine, on the environment's clock). The advance-billed days after the pause day are
 * credited pro rata; on resume the current period is charged pro rata from the resume day, on the
 * periods of the same anchor (nextCharge skips the paused days, so billing goes on as if they were a
 * gap in the calendar).
 */

export interface PauseSubscription {
  readonly subscriptionId: string;
  /** The day it resumes by itself (YYYY-MM-DD, the first day served again); absent or null: only by hand. */
  readonly resumeAt?: unknown;
}

/**
 * Refused (409): a paused subscription (`subscription-paused`), one with a scheduled change of items
 * (`subscription-change-pending`: drop it first), one in its free trial (`subscription-trialing`: nothing
 * is billed in it anyway; end the trial or cancel instead), an ended one (`subscription-ended`). 422 at /resumeAt: not a date, not after the pause day, or after the last day of
 * service.
 */
export function decidePauseSubscription(command: PauseSubscription, state: SubscriptionState, meta: CommandMetadata): SubscriptionPaused[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (isOverAt(subscription, meta.now)) throw endedError(subscription);
  if (subscription.pause != null) {
    throw new ConflictError('subscription-paused', `subscription ${subscription.id} is paused already (since ${subscription.pause.pausedAt})`);
  }
  const pending = subscription.pendingChanges ?? [];
  if (pending.length > 0) {
    // A change scheduled into a pause would prorate days the pause credited: one or the other.
    throw new ConflictError('subscription-change-pending', `subscription ${subscription.id} has a scheduled change (${pending[0].id}): drop it first (DELETE)`);
  }
  refuseBilledSince(subscription, meta.now);
  const today = localDateOf(meta.now, subscription.timeZone);
  if (trialRunning(subscription) && today < subscription.trial.end) {
    throw new ConflictError('subscription-trialing', `subscription ${subscription.id} is in its free trial until ${subscription.trial.end}: nothing to pause`);
  }
  const resumeAt = command.resumeAt == null ? null : validResumeAt(subscription, command.resumeAt, today);
  return [
    {
      type: 'SubscriptionPaused',
      schemaVersion: 1,
      data: {
        subscriptionId: subscription.id,
        start: addDays(today, 1),
        resumeAt,
        prorations: subscription.items.flatMap((item) => advanceCredit(subscription, item, addDays(today, 1), 'pause') ?? []),
        pausedAt: meta.now.toISOString(),
      },
    },
  ];
}

function validResumeAt(subscription: Subscription, value: unknown, today: string): string {
  const resumeAt = validDate(value, '/resumeAt');
  if (resumeAt <= today)
    throw ValidationError.at('/resumeAt', `must be after today (${today} in ${subscription.timeZone}), the last day served before the pause`);
  const last = finalDay(subscription);
  if (last !== null && resumeAt > last) throw ValidationError.at('/resumeAt', `must be on or before the subscription's last day of service (${last})`);
  return resumeAt;
}

export interface ResumeSubscription {
  readonly subscriptionId: string;
}

/**
 * PUT /subscriptions/{id}/resume: billing goes on from today (from resumeAt when that day has come and the
 * engine has yet to record it: the same resume). Refused (409) when not paused (`subscription-not-paused`)
 * or ended.
 */
export function decideResumeSubscription(command: ResumeSubscription, state: SubscriptionState, meta: CommandMetadata): SubscriptionResumed[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (isOverAt(subscription, meta.now)) throw endedError(subscription);
  if (!isPaused(subscription)) throw new ConflictError('subscription-not-paused', `subscription ${subscription.id} is not paused`);
  const today = localDateOf(meta.now, subscription.timeZone);
  const { resumeAt } = subscription.pause;
  return [resumedEvent(subscription, resumeAt !== null && resumeAt <= today ? resumeAt : today, meta.now, false)];
}

/**
 * The engine's pause step at now: the resume at resumeAt once that instant has come — after whatever falls
 * due before it (the pre-pause arrears, a renewal, the end), so events stay in time order; at the same
 * instant the resume goes first, so the resumed charges join that instant's invoice. Nothing due: no events.
 */
export function decideAdvancePause(command: AdvanceSubscription, state: SubscriptionState, meta: CommandMetadata): SubscriptionResumed[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  const at = resumeInstant(subscription);
  if (at === null || !isDueBy(at, meta.now) || !isPaused(subscription)) return [];
  const due = nextDue(subscription);
  if (due !== null && due.billAt < at) return [];
  return [resumedEvent(subscription, subscription.pause.resumeAt!, at, true)];
}

function isPaused(subscription: Subscription): subscription is Subscription & { readonly pause: Pause } {
  return subscription.pause != null;
}
