import { addDays, Evolver, NotFoundError } from '@billing/shared-kernel';
import { maxDate } from './calendar';
import { SubscriptionDiscount } from './discounts';
import { Period, termEnd, TermLength } from './periods';
import {
  AdvancePiece,
  ItemsChange,
  PaymentMethod,
  ProrationLine,
  SubscriptionCustomer,
  SubscriptionEvent,
  SubscriptionItem,
  SubscriptionResumed,
  Term,
  UsageCharge,
  UsageLineRange,
  SubscriptionBilled,
  SubscriptionCreated,
  SubscriptionItemsChanged,
} from './subscription-events';
import { startOfDayIn } from './time-zone';

/**
 * The Subscription aggregate, decider style: its state and `evolve`, which
 * folds events (here), the events (`subscription-events.ts`), the commands
 * (`subscription-commands.ts`), and one pure `decide*` per command that
 * returns events or throws a typed error (`subscription-decisions.ts`). Time
 * comes from CommandMetadata, item ids from `meta.newId()`, and what the
 * catalog knows about each price comes with the command (`PriceFacts`).
 * Billing (what is due when, and billing it) is in `billing.ts`.
 */

export const MAX_SUBSCRIPTION_ITEMS = 50;

export type SubscriptionStatus = 'trialing' | 'active' | 'paused' | 'cancelled' | 'ended';

/** A pause in force (README: Pause and resume): nothing is billed from `start` until it resumes. */
export interface Pause {
  /** The instant it was paused (the pause day, its local date, is still served). */
  readonly pausedAt: string;
  /** The first day not served: the day after the pause day. */
  readonly start: string;
  /** The day it resumes by itself (the first day served again); null: only by hand. */
  readonly resumeAt: string | null;
}

/** A free trial: the days from `start` to the day before `end` are never billed. */
export interface Trial {
  /** The first trial day (the term start). */
  readonly start: string;
  /** The day the trial ends, exclusive: the first day billed (the anchor). Ended early: that day. */
  readonly end: string;
  /** When subscription.trial_will_end was recorded; null: not (yet). */
  readonly announcedAt: string | null;
  /** When the trial ended (at `end`, or early); null: still running (or the subscription ended within it). */
  readonly endedAt: string | null;
}

/** The longest trial (trialDays, or trialEnd counted from term.start). */
export const MAX_TRIAL_DAYS = 730;

export interface Subscription {
  readonly status: SubscriptionStatus;
  readonly id: string;
  readonly handle: string;
  readonly customer: SubscriptionCustomer;
  /** The customer record it bills (its invoices are made out to it); absent or null: an inline customer. */
  readonly customerId?: string | null;
  readonly currency: string;
  readonly timeZone: string;
  /**
   * The first day billed: every item's periods are anchored here for the subscription's whole life. The
   * first term's start, or with a trial the day the trial ends (ended early: that day).
   */
  readonly anchor: string;
  /** The free trial it started with (absent or null: none). */
  readonly trial?: Trial | null;
  /** The current term (after renewals: the latest). */
  readonly term: Term;
  readonly termLength: TermLength | null;
  readonly autoRenewal: boolean;
  /** Renewals so far: the current term is term number renewals + 1. */
  readonly renewals: number;
  readonly items: readonly SubscriptionItem[];
  readonly paymentMethod: PaymentMethod | null;
  /** Per item id, the last day billed (a one-time item: the anchor, once billed). Absent: nothing billed yet. */
  readonly billedThrough: Readonly<Record<string, string>>;
  readonly lastBilledAt: string | null;
  /** The last failed attempt to bill the next due charges, until they are billed. */
  readonly billingFailure: BillingFailure | null;
  /**
   * Per item, the last failed attempt to bill its charge at billAt (absent when
   * none): that charge waits for its retry alone, the other items' charges are
   * billed meanwhile (nextDue leaves it out, retryDue brings it back).
   */
  readonly itemFailures?: Readonly<Record<string, BillingFailure>>;
  /** The last day of service (inclusive) once cancelled. */
  readonly cancelAt: string | null;
  readonly endedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Invoices with usage kept as drafts for the usage grace period, booked at bookAt (absent in states stored before usage billing). */
  readonly pendingBookings?: readonly PendingBooking[];
  /**
   * Per event_based item, the usage of its recent periods as booked (or last
   * corrected): late events are billed as the difference. Periods that can no
   * longer receive events (35 days) are dropped.
   */
  readonly usageBilled?: Readonly<Record<string, readonly UsageCharge[]>>;
  /** Per advance item, the last piece billed (what a cancel now credits pro rata); absent: none recorded yet. */
  readonly advanceBilled?: Readonly<Record<string, AdvancePiece>>;
  /** Coupons redeemed on it, in the order given (absent in states stored before coupons). */
  readonly discounts?: readonly SubscriptionDiscount[];
  /** The pause in force (status paused); absent or null: none. */
  readonly pause?: Pause | null;
  /** The days of earlier pauses, oldest first: never billed (a piece ends before one and the next starts after it). */
  readonly pausedDays?: readonly Period[];
  /**
   * Proration lines waiting for the next invoice the engine books for it (nextDue brings them all; the
   * SubscriptionBilled that bills them empties the list). Absent: none ever waited.
   */
  readonly pendingProrations?: readonly ProrationLine[];
  /** Changes of items scheduled for later (effective period_end or a date), in the order they apply. */
  readonly pendingChanges?: readonly ItemsChange[];
  /** The last change of items applied (subscription.updated carries it); absent: never changed. */
  readonly latestChange?: ItemsChange;
}

/**
 * The state with `prorations` waiting for the next invoice: what an event that prorates (a change, a pause)
 * folds into it.
 */
export function withPendingProrations<State extends Subscription>(state: State, prorations: readonly ProrationLine[] | undefined): State {
  if (prorations === undefined || prorations.length === 0) return state;
  return { ...state, pendingProrations: [...(state.pendingProrations ?? []), ...prorations] };
}

export interface BillingFailure {
  readonly billAt: string;
  readonly reason: string;
  readonly attempts: number;
  readonly retryAt: string;
}

export interface PendingBooking {
  readonly invoiceId: string;
  readonly billAt: string;
  readonly bookAt: string;
  readonly usage: readonly UsageCharge[];
  readonly usageLines: UsageLineRange;
}

/** How long usage periods stay correctable: events are accepted up to 35 days back; a margin of 2 days. */
const USAGE_CORRECTABLE_DAYS = 37;

/** Records booked usage, replacing the record of the same item and period, and drops periods no event can reach any more. */
function withBookedUsage(state: Subscription, charges: readonly UsageCharge[], at: string): Readonly<Record<string, readonly UsageCharge[]>> {
  const horizon = addDays(at.slice(0, 10), -USAGE_CORRECTABLE_DAYS);
  const billed: Record<string, UsageCharge[]> = {};
  for (const [itemId, records] of Object.entries(state.usageBilled ?? {})) billed[itemId] = records.filter((record) => record.period.end >= horizon);
  for (const charge of charges) {
    const records = (billed[charge.itemId] ??= []).filter((record) => record.period.start !== charge.period.start);
    records.push({ itemId: charge.itemId, period: charge.period, quantity: charge.quantity, amount: charge.amount });
    billed[charge.itemId] = records.sort((a, b) => (a.period.start < b.period.start ? -1 : 1));
  }
  return billed;
}
/**
 * What is billed once `credits` gave their unused days back: each credited item is billed through the day
 * before its credit (days served again are billed again) and its piece billed in advance ends there, so no
 * later credit (a cancel now after a pause) gives the same days back twice.
 */
function withoutCredited(
  state: Pick<Subscription, 'advanceBilled' | 'billedThrough'>,
  credits: readonly ProrationLine[],
): Pick<Subscription, 'advanceBilled' | 'billedThrough'> {
  // Nothing credited: nothing changes (and a state without advanceBilled keeps none).
  if (credits.length === 0)
    return state.advanceBilled === undefined
      ? { billedThrough: state.billedThrough }
      : { advanceBilled: state.advanceBilled, billedThrough: state.billedThrough };
  const pieces: Record<string, AdvancePiece> = { ...state.advanceBilled };
  const billedThrough = { ...state.billedThrough };
  for (const { itemId, period } of credits) {
    const end = addDays(period.start, -1);
    billedThrough[itemId] = end;
    const piece = pieces[itemId];
    if (piece === undefined) continue;
    if (end < piece.period.start) delete pieces[itemId];
    else pieces[itemId] = { ...piece, period: { start: piece.period.start, end } };
  }
  return { advanceBilled: pieces, billedThrough };
}

/** Before its SubscriptionCreated a stream holds nothing. */
export type SubscriptionState = { readonly status: 'none' } | Subscription;

// ---------------------------------------------------------------- evolve

export function initialSubscriptionState(): SubscriptionState {
  return { status: 'none' };
}

export function evolveSubscription(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  if (event.type === 'SubscriptionCreated') return state.status === 'none' ? createdSubscription(event) : state;
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'SubscriptionCancelled':
      // A paused subscription stays paused (it shows cancelAt); it is cancelled again when it resumes.
      return { ...state, status: state.pause != null ? 'paused' : 'cancelled', cancelAt: event.data.cancelAt, updatedAt: event.data.cancelledAt };
    case 'SubscriptionReactivated': {
      const status = state.pause != null ? 'paused' : trialRunning(state) ? 'trialing' : 'active';
      return { ...state, status, cancelAt: null, updatedAt: event.data.reactivatedAt };
    }
    case 'SubscriptionPaused': {
      const { start, resumeAt, prorations, pausedAt } = event.data;
      const paused: Subscription = {
        ...state,
        status: 'paused',
        pause: { pausedAt, start, resumeAt },
        ...withoutCredited(state, prorations),
        updatedAt: pausedAt,
      };
      return withPendingProrations(paused, prorations);
    }
    case 'SubscriptionResumed': {
      const { resumeDay, resumedAt } = event.data;
      const start = state.pause?.start ?? resumeDay;
      // A resume on the pause day (or the day after) paused no day at all.
      const pausedDays = start < resumeDay ? [...(state.pausedDays ?? []), { start, end: addDays(resumeDay, -1) }] : (state.pausedDays ?? []);
      return { ...state, status: state.cancelAt !== null ? 'cancelled' : 'active', pause: null, pausedDays, updatedAt: resumedAt };
    }
    case 'SubscriptionTrialEndAnnounced':
      return { ...state, trial: { ...state.trial!, announcedAt: event.data.announcedAt }, updatedAt: event.data.announcedAt };
    case 'SubscriptionTrialEnded': {
      const { anchor, endedAt } = event.data;
      // Cancelled within the trial: it stays cancelled (ending the trial early only moves the first billed day).
      const status = state.status === 'trialing' ? 'active' : state.status;
      return { ...state, status, anchor, trial: { ...state.trial!, end: anchor, endedAt }, updatedAt: endedAt };
    }
    case 'SubscriptionRenewed':
      return { ...state, term: event.data.term, renewals: state.renewals + 1, updatedAt: event.data.renewedAt };
    case 'SubscriptionBilled':
      return billedSubscription(state, event);
    case 'SubscriptionInvoiceBooked': {
      const { invoiceId, usage, bookedAt } = event.data;
      const pendingBookings = (state.pendingBookings ?? []).filter((booking) => booking.invoiceId !== invoiceId);
      return { ...state, pendingBookings, usageBilled: withBookedUsage(state, usage, bookedAt), updatedAt: bookedAt };
    }
    case 'SubscriptionBillingFailed': {
      const { billAt, reason, attempts, retryAt, itemId } = event.data;
      if (itemId !== undefined) return { ...state, itemFailures: { ...state.itemFailures, [itemId]: { billAt, reason, attempts, retryAt } } };
      return { ...state, billingFailure: { billAt, reason, attempts, retryAt } };
    }
    case 'SubscriptionEnded':
      return { ...state, status: 'ended', endedAt: event.data.endedAt, updatedAt: event.data.endedAt };
    case 'UsageEventCancelled':
      // A fact about the usage, not about the subscription: what it bills next is rated from usage_events.
      return state;
    case 'SubscriptionChangeScheduled':
      return { ...state, pendingChanges: [...(state.pendingChanges ?? []), event.data.change], updatedAt: event.data.change.requestedAt };
    case 'SubscriptionChangeDropped': {
      const { changeId, droppedAt } = event.data;
      return { ...state, pendingChanges: (state.pendingChanges ?? []).filter((change) => change.id !== changeId), updatedAt: droppedAt };
    }
    case 'SubscriptionItemsChanged':
      return itemsChanged(state, event);
    case 'SubscriptionDiscountApplied':
      return { ...state, discounts: [...(state.discounts ?? []), event.data.discount], updatedAt: event.data.appliedAt };
    case 'SubscriptionDiscountEnded': {
      const { discountId, end, endedAt } = event.data;
      const discounts = (state.discounts ?? []).map((discount) => (discount.id === discountId ? { ...discount, end, endedAt } : discount));
      return { ...state, discounts, updatedAt: endedAt };
    }
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

function createdSubscription(event: SubscriptionCreated): Subscription {
  const { subscriptionId, createdAt, paymentMethod, trialEnd, ...data } = event.data;
  const trial = trialEnd == null ? {} : { trial: { start: data.term.start, end: trialEnd, announcedAt: null, endedAt: null } };
  return {
    status: trialEnd == null ? 'active' : 'trialing',
    id: subscriptionId,
    ...data,
    ...trial,
    paymentMethod: paymentMethod ?? null,
    anchor: trialEnd ?? data.term.start,
    renewals: 0,
    billedThrough: {},
    lastBilledAt: null,
    billingFailure: null,
    cancelAt: null,
    endedAt: null,
    createdAt,
    updatedAt: createdAt,
  };
}

function billedSubscription(state: Subscription, event: SubscriptionBilled): Subscription {
  const { lines, billAt, billedAt, usage = [], corrections = [], bookAt, usageLines, invoiceId } = event.data;
  const billedThrough = { ...state.billedThrough };
  for (const line of lines) billedThrough[line.itemId] = line.period?.end ?? state.anchor;
  const bookedNow = bookAt == null || usage.length === 0;
  // Subscriptions without usage keep the state they always had (no usage members).
  const usageState: { -readonly [K in keyof Subscription]?: Subscription[K] } = {};
  if (usage.length > 0 || corrections.length > 0 || state.usageBilled !== undefined) {
    usageState.usageBilled = withBookedUsage(state, bookedNow ? [...corrections, ...usage] : corrections, billAt);
  }
  if (!bookedNow) {
    usageState.pendingBookings = [...(state.pendingBookings ?? []), { invoiceId, billAt, bookAt, usage, usageLines: usageLines ?? { first: 0, count: 0 } }];
  }
  // A retried item's charge is billed after later charges of the others: lastBilledAt never goes back.
  const lastBilledAt = state.lastBilledAt !== null && state.lastBilledAt > billAt ? state.lastBilledAt : billAt;
  if (state.itemFailures !== undefined) {
    usageState.itemFailures = Object.fromEntries(Object.entries(state.itemFailures).filter(([itemId]) => !lines.some((line) => line.itemId === itemId)));
  }
  const advance = lines.filter((line) => line.kind === 'advance' && line.period !== null);
  if (advance.length > 0) {
    const pieces: Record<string, AdvancePiece> = { ...state.advanceBilled };
    for (const { itemId, period, daysInFullPeriod, fullAmount } of advance) pieces[itemId] = { period: period!, daysInFullPeriod, fullAmount };
    usageState.advanceBilled = pieces;
  }
  // A billing with prorations bills every pending one (nextDue brings them all).
  const prorations = event.data.prorations ?? [];
  if (prorations.length > 0) usageState.pendingProrations = [];
  const billed = { ...state, billedThrough, lastBilledAt, billingFailure: null, updatedAt: billedAt, ...usageState };
  // A cancel now's final invoice gives the unused advance-billed days back (credits made earlier, a pause's, did so when made).
  return {
    ...billed,
    ...withoutCredited(
      billed,
      prorations.filter((line) => line.reason === 'cancellation'),
    ),
  };
}

function itemsChanged(state: Subscription, event: SubscriptionItemsChanged): Subscription {
  const { change, items, billedThrough, advanceBilled, prorations, changedAt } = event.data;
  const kept = <T>(record: Readonly<Record<string, T>> | undefined): Record<string, T> =>
    Object.fromEntries(Object.entries(record ?? {}).filter(([itemId]) => items.some((item) => item.id === itemId)));
  const changed: Subscription = {
    ...state,
    items,
    billedThrough: { ...kept(state.billedThrough), ...billedThrough },
    ...(state.advanceBilled !== undefined || Object.keys(advanceBilled).length > 0
      ? { advanceBilled: { ...kept(state.advanceBilled), ...advanceBilled } }
      : {}),
    ...(state.itemFailures !== undefined ? { itemFailures: kept(state.itemFailures) } : {}),
    pendingChanges: (state.pendingChanges ?? []).filter((pending) => pending.id !== change.id),
    latestChange: change,
    updatedAt: changedAt,
  };
  return withPendingProrations(changed, prorations);
}

export const subscriptionEvolver: Evolver<SubscriptionState, SubscriptionEvent> = {
  initialState: initialSubscriptionState,
  evolve: evolveSubscription,
};

export function existingSubscription(state: SubscriptionState, subscriptionId: string): Subscription {
  if (state.status === 'none') throw new NotFoundError('subscription', subscriptionId);
  return state;
}

// ---------------------------------------------------------------- lifecycle rules shared with billing

/** A trial that has not ended yet (the engine records its end at the trial's end; end-trial ends it early). */
export function trialRunning(subscription: Subscription): subscription is Subscription & { readonly trial: Trial } {
  return subscription.trial != null && subscription.trial.endedAt === null;
}

/** The instant a pause with a resumeAt ends by itself (its local midnight); null: not paused, ended, or resumed only by hand. */
export function resumeInstant(state: SubscriptionState): Date | null {
  if (state.status === 'none' || state.status === 'ended' || state.pause?.resumeAt == null) return null;
  return startOfDayIn(state.pause.resumeAt, state.timeZone);
}

/**
 * The end of the pause, billing going on from `day` (never before the pause's first day: a resume on the
 * pause day pauses no day).
 */
export function resumedEvent(subscription: Subscription & { readonly pause: Pause }, day: string, at: Date, automatic: boolean): SubscriptionResumed {
  return {
    type: 'SubscriptionResumed',
    schemaVersion: 1,
    data: { subscriptionId: subscription.id, resumeDay: maxDate(day, subscription.pause.start), automatic, resumedAt: at.toISOString() },
  };
}

/** The first term's start: renewals are measured from it (the billing anchor moves to a trial's end). */
function termAnchor(subscription: Subscription): string {
  return subscription.trial?.start ?? subscription.anchor;
}

/** The last day of service if nothing changes: cancelAt, or the end of a term that will not renew; null while it runs on. */
export function finalDay(subscription: Subscription): string | null {
  if (subscription.cancelAt !== null) return subscription.cancelAt;
  return subscription.autoRenewal ? null : subscription.term.end;
}

/** The instant service stops (the start of the day after the final day), or null. */
export function endsAt(subscription: Subscription): Date | null {
  const last = finalDay(subscription);
  return last === null ? null : startOfDayIn(addDays(last, 1), subscription.timeZone);
}

/** Ended, or past its end and only waiting for the billing engine to record SubscriptionEnded. */
export function isOverAt(subscription: Subscription, now: Date): boolean {
  const end = endsAt(subscription);
  return subscription.status === 'ended' || (end !== null && now >= end);
}

/** Whether the current term renews when it ends: auto-renewing, and not cancelled within it. */
export function renewsAfterTerm(subscription: Subscription): boolean {
  const { status, autoRenewal, term, cancelAt } = subscription;
  return status !== 'ended' && autoRenewal && term.end !== null && (cancelAt === null || cancelAt > term.end);
}

/** The term that follows the current one: same calendar length, measured from the anchor so month ends never drift. */
export function nextTerm(subscription: Subscription): { start: string; end: string } {
  const { term, termLength, renewals } = subscription;
  if (term.end === null || termLength === null) throw new RangeError('an evergreen term does not renew');
  return { start: addDays(term.end, 1), end: termEnd(termAnchor(subscription), termLength, renewals + 2) };
}
