import { addDays, ConflictError, isDueBy } from '@billing/shared-kernel';
import { daysInclusive, maxDate, minDate } from './calendar';
import { Period, periodAt } from './periods';
import {
  endsAt,
  evolveSubscription,
  finalDay,
  isOverAt,
  nextTerm,
  Pause,
  renewsAfterTerm,
  resumedEvent,
  resumeInstant,
  Subscription,
  SubscriptionState,
  SubscriptionStatus,
  trialRunning,
} from './subscription';
import { ChargeKind, ProrationLine, SubscriptionEnded, SubscriptionItem, SubscriptionRenewed, Term } from './subscription-events';
import { localDateOf, startOfDayIn } from './time-zone';

/**
 * What a subscription bills when (here), and billing it exactly once (the
 * deciders in billing-decisions.ts, their commands in billing-commands.ts).
 *
 * Each item is billed in pieces: a period clipped to the term it lies in and to
 * cancelAt. An item's next piece starts the day after the last day billed
 * (`billedThrough`), so every day is billed once by construction, and billing
 * the same billAt twice is refused (ConflictError `subscription-period-billed`).
 * A piece bills at the start of its first day (advance) or of the day after its
 * last (arrears); a one-time item once at the start of the first term.
 *
 * The engine's loop, up to its now:
 *   due = nextDue(state); if due.billAt > now: stop;
 *   due.charges empty → decideAdvanceSubscription, else price each charge's full
 *   period and decideBillDue.
 */

export interface ItemCharge {
  readonly itemId: string;
  readonly kind: ChargeKind;
  readonly billAt: Date;
  /** The days charged, possibly shortened; null for a one-time charge. */
  readonly period: Period | null;
  readonly daysUsed: number;
  readonly daysInFullPeriod: number;
}

/** The earliest thing that falls due: at `billAt`, first the renewal (if any), then the charges, then the end (if it ends). */
export interface DueBilling {
  readonly billAt: Date;
  /** The term SubscriptionRenewed starts at billAt; the new term's first advance charges are among `charges`. */
  readonly renewal: { readonly start: string; readonly end: string } | null;
  /** Grouped: every item billed at billAt, for one invoice. Empty when only a renewal or the end is due. */
  readonly charges: readonly ItemCharge[];
  /** SubscriptionEnded at billAt, after the charges (the final arrears). */
  readonly ends: boolean;
  /** The proration lines the invoice at billAt bills after the charges: every pending one (none on a retry's invoice of its own). */
  readonly prorations: readonly ProrationLine[];
}

/** Whether the billing makes an invoice: charges, or proration lines waiting (they go on the next invoice even without a charge). */
export function billsInvoice(due: Pick<DueBilling, 'charges' | 'prorations'>): boolean {
  return due.charges.length > 0 || due.prorations.length > 0;
}

/**
 * The item's next unbilled piece, or null when it has nothing left to bill in the current term (or until
 * the pause in force ends).
 */
export function nextCharge(subscription: Subscription, item: SubscriptionItem): ItemCharge | null {
  const { anchor, term, cancelAt, timeZone, pause } = subscription;
  const billed = subscription.billedThrough[item.id];
  if (item.schedule.purchase === 'one_time') {
    // Service that ends before the anchor (cancelled within a trial) never reaches the one-time charge.
    if (billed !== undefined || (cancelAt !== null && cancelAt < anchor)) return null;
    // A subscription paused before it starts bills its one-time charge on the first day served.
    const day = afterPausedDays(subscription, anchor);
    if (pause != null && day >= pause.start) return null;
    return { itemId: item.id, kind: 'one_time', billAt: startOfDayIn(day, timeZone), period: null, daysUsed: 1, daysInFullPeriod: 1 };
  }
  const first = afterPausedDays(subscription, billed === undefined ? anchor : addDays(billed, 1));
  if (pause != null && first >= pause.start) return null;
  // A piece never crosses a term boundary: one left over from the previous term ends where that term ended.
  const termLast = first < term.start ? addDays(term.start, -1) : term.end;
  let last = cancelAt === null ? termLast : termLast === null ? cancelAt : minDate(termLast, cancelAt);
  // Nor a pause: it ends on the pause day (billed then as any piece cut short), the rest after the resume.
  const pausedNext = [pause?.start, (subscription.pausedDays ?? []).find((gap) => gap.start > first)?.start].filter((day) => day != null);
  for (const day of pausedNext) last = last === null ? addDays(day, -1) : minDate(last, addDays(day, -1));
  if (last !== null && first > last) return null;
  const full = periodAt(anchor, item.schedule, first);
  const end = last === null ? full.end : minDate(full.end, last);
  const { billingTiming } = item.schedule;
  return {
    itemId: item.id,
    kind: billingTiming,
    billAt: startOfDayIn(billingTiming === 'advance' ? first : addDays(end, 1), timeZone),
    period: { start: first, end },
    daysUsed: daysInclusive(first, end),
    daysInFullPeriod: daysInclusive(full.start, full.end),
  };
}

/** The first day from `day` on that no earlier pause kept from service. */
function afterPausedDays(subscription: Subscription, day: string): string {
  let first = day;
  for (const gap of subscription.pausedDays ?? []) if (gap.start <= first && first <= gap.end) first = addDays(gap.end, 1);
  return first;
}

function chargesOf(subscription: Subscription): ItemCharge[] {
  return subscription.items.flatMap((item) => nextCharge(subscription, item) ?? []).filter((charge) => !isHeld(subscription, charge));
}

/** A charge whose item failed to bill at its billAt waits for its retry (retryDue), never holding up the other items. */
function isHeld(subscription: Subscription, charge: ItemCharge): boolean {
  return subscription.itemFailures?.[charge.itemId]?.billAt === charge.billAt.toISOString();
}

/** The items whose charge waits for a retry. */
function heldItems(subscription: Subscription): string[] {
  return subscription.items
    .filter((item) => {
      const charge = nextCharge(subscription, item);
      return charge !== null && isHeld(subscription, charge);
    })
    .map((item) => item.id);
}

/**
 * The retry of an item's failed charge whose retryAt has come by `now` (the
 * earliest billAt first), billed alone on an invoice of its own; null when
 * none is ready.
 */
export function retryDue(state: SubscriptionState, now: Date): (DueBilling & { readonly retryOf: string }) | null {
  if (state.status === 'none' || state.status === 'ended') return null;
  let found: (DueBilling & { retryOf: string }) | null = null;
  for (const itemId of heldItems(state)) {
    const failure = state.itemFailures![itemId];
    if (!isDueBy(failure.retryAt, now)) continue;
    const charge = nextCharge(
      state,
      state.items.find((item) => item.id === itemId)!,
    )!;
    if (found === null || charge.billAt < found.billAt)
      found = { billAt: charge.billAt, renewal: null, charges: [charge], ends: false, prorations: [], retryOf: itemId };
  }
  return found;
}

function earliest(charges: readonly ItemCharge[]): Date | null {
  return charges.reduce<Date | null>((min, { billAt }) => (min === null || billAt < min ? billAt : min), null);
}

/**
 * Refuses (409 subscription-billing-pending) a command that prorates from `now` on a subscription whose billing
 * has moved past `now`: an instant billed, or a change of items applied, later than it. A request reads its
 * environment's clock when it starts; the billing engine (another process, or a test clock's advance) may bill
 * the next instant before the request's decision loads the subscription. Decided at the stale `now`, a change,
 * pause or cancel now would take its first day from before that billing and its credits from the period billed
 * since, leaving the days between billed at the old terms. Sent again, the request runs at the clock's new time.
 */
export function refuseBilledSince(subscription: Subscription, now: Date): void {
  const latest = [subscription.lastBilledAt, subscription.latestChange?.effectiveAt ?? null].reduce<string | null>(
    (max, at) => (at !== null && (max === null || Date.parse(at) > Date.parse(max)) ? at : max),
    null,
  );
  if (latest !== null && Date.parse(latest) > now.getTime()) {
    throw new ConflictError(
      'subscription-billing-pending',
      `subscription ${subscription.id} was billed or changed for ${latest}, after this request's time (${now.toISOString()}): the clock moved on meanwhile; try again`,
    );
  }
}

/** The next instant something falls due for the subscription, with all it brings; null when nothing ever will. */
export function nextDue(state: SubscriptionState): DueBilling | null {
  if (state.status === 'none' || state.status === 'ended') return null;
  const charges = chargesOf(state);
  const chargeAt = earliest(charges);
  const prorations = state.pendingProrations ?? [];
  if (renewsAfterTerm(state)) {
    const renewAt = startOfDayIn(addDays(state.term.end!, 1), state.timeZone);
    if (chargeAt === null || renewAt <= chargeAt) {
      // Renewing first lets the new term's advance charges join the old term's final arrears at the same instant.
      const renewal = nextTerm(state);
      const renewed = evolveSubscription(state, renewedEvent(state, renewal, renewAt)) as Subscription;
      const due = chargesOf(renewed).filter((charge) => charge.billAt.getTime() === renewAt.getTime());
      return { billAt: renewAt, renewal, charges: due, ends: false, prorations };
    }
  }
  const end = endsAt(state);
  if (chargeAt === null) return end === null || heldItems(state).length > 0 ? null : { billAt: end, renewal: null, charges: [], ends: true, prorations };
  const due = charges.filter((charge) => charge.billAt.getTime() === chargeAt.getTime());
  // Pieces stop at the final day, so the last of them (arrears) bill exactly when the subscription ends — unless an item's charge waits for its retry.
  const ends = end !== null && end.getTime() === chargeAt.getTime() && heldItems(state).length === 0;
  return { billAt: chargeAt, renewal: null, charges: due, ends, prorations };
}

/** The subscription as the engine will hold it at the next billing with charges, and that billing. */
export interface UpcomingBilling {
  /** The state the engine bills from: the renewals and the end due before `due.billAt` without a charge applied. */
  readonly subscription: Subscription;
  readonly due: DueBilling;
}

/**
 * The next billing with charges, as the engine reaches it from this state:
 * instants that bring only a renewal or the end go through
 * decideAdvanceSubscription first, so they are applied here the same way. A
 * due instant already past is still the next one (the engine bills it in its
 * next turn). null when nothing is left to bill: ended, only the end ahead, or
 * renewals that can never charge again (no recurring item: a one-time price
 * bills once, in the first term).
 */
export function upcomingBilling(state: SubscriptionState): UpcomingBilling | null {
  let current = state;
  for (;;) {
    const due = nextDue(current);
    // The engine resumes a pause at its resumeAt before billing what falls due at that instant or later.
    const resumeAt = resumeInstant(current);
    if (resumeAt !== null && (due === null || resumeAt <= due.billAt)) {
      const paused = current as Subscription & { readonly pause: Pause };
      current = evolveSubscription(current, resumedEvent(paused, paused.pause.resumeAt!, resumeAt, true));
      continue;
    }
    if (due === null) return null;
    const subscription = current as Subscription;
    if (billsInvoice(due)) return { subscription, due };
    if (due.renewal !== null && subscription.items.every((item) => item.schedule.purchase === 'one_time')) return null;
    current = evolveSubscription(current, due.renewal !== null ? renewedEvent(subscription, due.renewal, due.billAt) : endedEvent(subscription, due.billAt));
  }
}

// ---------------------------------------------------------------- trials

/** subscription.trial_will_end is announced this many days before the trial ends. */
export const TRIAL_NOTICE_DAYS = 3;

/**
 * The trial's clock-driven instants: the notice (the start of the day TRIAL_NOTICE_DAYS before its end, never
 * before its first day) and its end (the start of its end day). None when there is no running trial, or when the
 * subscription ends within the trial (cancelled in it: it ends instead of turning into a paid subscription).
 */
export function trialInstants(state: SubscriptionState): { announceAt: Date | null; endAt: Date } | null {
  if (state.status === 'none' || state.status === 'ended' || !trialRunning(state)) return null;
  const { trial, timeZone } = state;
  const last = finalDay(state);
  if (last !== null && last < trial.end) return null;
  const endAt = startOfDayIn(trial.end, timeZone);
  const announceAt = trial.announcedAt === null ? startOfDayIn(maxDate(addDays(trial.end, -TRIAL_NOTICE_DAYS), trial.start), timeZone) : null;
  return { announceAt, endAt };
}

/** When the engine next has trial work (the notice, then the end); null: none. */
export function nextTrialWorkAt(state: SubscriptionState): Date | null {
  const instants = trialInstants(state);
  if (instants === null) return null;
  return instants.announceAt !== null && instants.announceAt < instants.endAt ? instants.announceAt : instants.endAt;
}

// ---------------------------------------------------------------- view

export interface ItemTimeline {
  readonly itemId: string;
  /** The period holding now (the first if not started, the last if over), shortened at the final day; null for one-time items. */
  readonly period: Period | null;
  /** The next instant the item will be billed (possibly past, if the engine has yet to bill it); null when never again. */
  readonly billAt: Date | null;
}

export interface SubscriptionTimeline {
  /** `ended` as soon as the end has passed, even before the engine records SubscriptionEnded. */
  readonly status: SubscriptionStatus;
  readonly term: Term;
  readonly items: readonly ItemTimeline[];
}

export function timelineAt(subscription: Subscription, now: Date): SubscriptionTimeline {
  const today = localDateOf(now, subscription.timeZone);
  const last = finalDay(subscription);
  // An item billed out for the current term bills next in the renewed one (renewedAt only stamps updatedAt, so now will do).
  const renewed = renewsAfterTerm(subscription)
    ? (evolveSubscription(subscription, renewedEvent(subscription, nextTerm(subscription), now)) as Subscription)
    : null;
  // A trial whose end has come is over, even before the engine records SubscriptionTrialEnded.
  const trialOver = subscription.status === 'trialing' && now >= startOfDayIn(subscription.trial!.end, subscription.timeZone);
  // So is a pause whose resumeAt has come; until then, items show the billAt the resume brings.
  const resumeAt = resumeInstant(subscription);
  const resumed =
    resumeAt === null
      ? null
      : (evolveSubscription(
          subscription,
          resumedEvent(subscription as Subscription & { readonly pause: Pause }, subscription.pause!.resumeAt!, resumeAt, true),
        ) as Subscription);
  const status = trialOver || (resumed !== null && now >= resumeAt!) ? (resumed?.status ?? 'active') : subscription.status;
  return {
    status: isOverAt(subscription, now) ? 'ended' : status,
    term: subscription.term,
    items: subscription.items.map((item) => {
      const charge =
        subscription.status === 'ended'
          ? null
          : (nextCharge(subscription, item) ?? (renewed && nextCharge(renewed, item)) ?? (resumed && nextCharge(resumed, item)));
      if (item.schedule.purchase === 'one_time') return { itemId: item.id, period: null, billAt: charge?.billAt ?? null };
      const date = last === null ? today : minDate(today, last);
      const full = periodAt(subscription.anchor, item.schedule, maxDate(date, subscription.anchor));
      return { itemId: item.id, period: { start: full.start, end: last === null ? full.end : minDate(full.end, last) }, billAt: charge?.billAt ?? null };
    }),
  };
}

/** When the billing engine next has work for the subscription (bill, renew, end, or retry a failure); null: never again. */
export function nextWorkAt(state: SubscriptionState): Date | null {
  let due: DueBilling | null;
  try {
    due = nextDue(state);
  } catch (error) {
    // Past the calendar's last date (9999-12-31) there is nothing more to bill; never a reason for the read model to stall.
    if (error instanceof RangeError) return null;
    throw error;
  }
  if (state.status === 'none') return null;
  const candidates = (state.pendingBookings ?? []).map((booking) => Date.parse(booking.bookAt));
  const trialWork = nextTrialWorkAt(state);
  if (trialWork !== null) candidates.push(trialWork.getTime());
  // The resume waits for what falls due before it (decideAdvancePause), a failed billing's retry included.
  const resumeAt = resumeInstant(state);
  if (resumeAt !== null && (due === null || due.billAt >= resumeAt)) candidates.push(resumeAt.getTime());
  // A scheduled change of items applies at its instant (changes.ts: dueChange), unless the subscription is over by then.
  const change = state.pendingChanges?.[0];
  if (change !== undefined && !isOverAt(state, new Date(change.effectiveAt))) candidates.push(Date.parse(change.effectiveAt));
  if (state.status !== 'ended') for (const itemId of heldItems(state)) candidates.push(Date.parse(state.itemFailures![itemId].retryAt));
  if (due !== null) {
    const failure = state.billingFailure;
    candidates.push(
      failure !== null && failure.billAt === due.billAt.toISOString() ? Math.max(due.billAt.getTime(), Date.parse(failure.retryAt)) : due.billAt.getTime(),
    );
  }
  return candidates.length === 0 ? null : new Date(Math.min(...candidates));
}

/** The renewal into `term`, as the engine records it (also folded ahead by the queries below). */
export function renewedEvent(subscription: Subscription, term: { start: string; end: string }, at: Date): SubscriptionRenewed {
  return { type: 'SubscriptionRenewed', schemaVersion: 1, data: { subscriptionId: subscription.id, term, renewedAt: at.toISOString() } };
}

/** The end of service, as the engine records it. */
export function endedEvent(subscription: Subscription, at: Date): SubscriptionEnded {
  return { type: 'SubscriptionEnded', schemaVersion: 1, data: { subscriptionId: subscription.id, endedAt: at.toISOString() } };
}
