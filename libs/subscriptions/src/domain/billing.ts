import { CommandMetadata, ConflictError, FieldError, ValidationError, addDays, assertAmountInRange, isDueBy } from '@billing/shared-kernel';
import { daysInclusive, maxDate, minDate } from './calendar';
import { Period, periodAt, proRate } from './periods';
import {
  ChargeKind,
  ProratedItem,
  ProrationLine,
  ProrationReason,
  SubscriptionBilled,
  SubscriptionBillingFailed,
  SubscriptionEnded,
  SubscriptionEvent,
  SubscriptionInvoiceBooked,
  SubscriptionItem,
  SubscriptionRenewed,
  SubscriptionTrialEndAnnounced,
  SubscriptionTrialEnded,
  Term,
  UsageCharge,
  UsageCorrection,
  UsageEventCancelled,
  UsageLineRange,
} from './subscription-events';
import {
  BillingFailure,
  Subscription,
  SubscriptionState,
  SubscriptionStatus,
  endsAt,
  evolveSubscription,
  existingSubscription,
  finalDay,
  isOverAt,
  nextTerm,
  Pause,
  renewsAfterTerm,
  resumedEvent,
  resumeInstant,
  trialRunning,
} from './subscription';
import { endedError } from './subscription-decisions';
import { localDateOf, startOfDayIn } from './time-zone';

/**
 * What a subscription bills when, and billing it exactly once.
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

// ---------------------------------------------------------------- deciders

export interface BillDue {
  readonly subscriptionId: string;
  /** The due instant being billed: nextDue(state).billAt. */
  readonly billAt: Date;
  /** The invoice the caller creates for these charges. */
  readonly invoiceId: string;
  /** Per charged item id: the price for a FULL period at the item's quantity (catalog pricing), in minor units; an event_based item: its period's rated usage. */
  readonly amounts: Readonly<Record<string, bigint>>;
  /** The rated usage of the event_based charges (one per such charge). */
  readonly usage?: readonly UsageCharge[];
  /** Late usage of periods already booked, billed now. */
  readonly corrections?: readonly UsageCorrection[];
  /** Keep the invoice a draft until this instant (the usage grace period); absent or null: booked now. */
  readonly bookAt?: Date | null;
  readonly usageLines?: UsageLineRange;
  /** The item whose failed charge this retries alone (retryDue); absent: the next due charges (nextDue). */
  readonly retryOf?: string;
}

/**
 * Bills the charges due at `billAt` (pro rata applied here), with the renewal
 * before and the end after them when they fall due at the same instant.
 * Refuses: a billAt already billed (`subscription-period-billed`), one that is
 * not the next due instant with charges or is later than now
 * (`subscription-billing-not-due`), an ended subscription (`subscription-ended`),
 * and amounts missing or extra for the charged items (422 at /amounts/{itemId}).
 */
export function decideBillDue(command: BillDue, state: SubscriptionState, meta: CommandMetadata): SubscriptionEvent[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  const { billAt } = command;
  const retry = command.retryOf === undefined ? null : retryDue(subscription, meta.now);
  const due = command.retryOf === undefined ? nextDue(subscription) : retry?.retryOf === command.retryOf ? retry : null;
  const isDue = due !== null && billsInvoice(due) && due.billAt.getTime() === billAt.getTime();
  // An instant billed already is refused — unless an item's charge at it is still due there (a failed item retried or catching
  // up after the others billed it): each item's billedThrough keeps every charge from being billed twice.
  if (!isDue && subscription.lastBilledAt !== null && billAt.getTime() <= Date.parse(subscription.lastBilledAt)) {
    throw new ConflictError('subscription-period-billed', `the charges due at ${billAt.toISOString()} have been billed already`);
  }
  if (subscription.status === 'ended') throw endedError(subscription);
  if (due === null || !billsInvoice(due) || due.billAt.getTime() !== billAt.getTime() || !isDueBy(billAt, meta.now)) {
    const next = due === null || !billsInvoice(due) ? 'no charge' : `the next charge at ${due.billAt.toISOString()}`;
    throw new ConflictError('subscription-billing-not-due', `nothing is due for billing at ${billAt.toISOString()} (${next}, now ${meta.now.toISOString()})`);
  }
  const events: SubscriptionEvent[] = due.renewal === null ? [] : [renewedEvent(subscription, due.renewal, billAt)];
  events.push(...billedEvents(subscription, due, command, meta));
  if (due.ends) events.push(endedEvent(subscription, billAt));
  return events;
}

/**
 * SubscriptionBilled for the charges of `due` (pro rata applied here) and its proration lines, and the once
 * discounts the invoice uses; refuses (422 at /amounts/{itemId}) amounts missing or extra for the charges.
 */
function billedEvents(
  subscription: Subscription,
  due: Pick<DueBilling, 'billAt' | 'charges' | 'prorations'>,
  command: Omit<BillDue, 'subscriptionId' | 'billAt'>,
  meta: CommandMetadata,
): SubscriptionEvent[] {
  const { billAt } = due;
  const errors: FieldError[] = Object.keys(command.amounts)
    .filter((itemId) => !due.charges.some((charge) => charge.itemId === itemId))
    .map((itemId) => ({ pointer: `/amounts/${itemId}`, detail: `item ${itemId} is not charged at this billAt` }));
  for (const { itemId } of due.charges) {
    if (typeof command.amounts[itemId] !== 'bigint') errors.push({ pointer: `/amounts/${itemId}`, detail: 'is required: the full-period amount of this item' });
  }
  if (errors.length > 0) throw new ValidationError('The amounts do not match the charges due.', errors);

  const at = billAt.toISOString();
  const events: SubscriptionEvent[] = [];
  events.push({
    type: 'SubscriptionBilled',
    schemaVersion: 1,
    data: {
      subscriptionId: subscription.id,
      invoiceId: command.invoiceId,
      billAt: at,
      lines: due.charges.map(({ itemId, kind, period, daysUsed, daysInFullPeriod }) => {
        const fullAmount = assertAmountInRange(command.amounts[itemId], `/amounts/${itemId}`);
        // Usage is what the (possibly shortened) period used: never pro-rated.
        const amount = kind === 'event_based' ? fullAmount : proRate(fullAmount, daysUsed, daysInFullPeriod);
        return { itemId, kind, period, daysUsed, daysInFullPeriod, fullAmount: Number(fullAmount), amount: Number(amount) };
      }),
      billedAt: meta.now.toISOString(),
      ...usageMembers(command),
      ...(due.prorations.length > 0 ? { prorations: due.prorations } : {}),
    },
  } satisfies SubscriptionBilled);
  // A once discount is used by the first invoice billed after it was applied (composeInvoice discounted it when eligible).
  for (const discount of subscription.discounts ?? []) {
    if (discount.duration !== 'once' || discount.endedAt !== null) continue;
    events.push({
      type: 'SubscriptionDiscountEnded',
      schemaVersion: 1,
      data: {
        subscriptionId: subscription.id,
        discountId: discount.id,
        reason: 'used',
        end: localDateOf(billAt, subscription.timeZone),
        endedAt: meta.now.toISOString(),
      },
    });
  }
  return events;
}

/** The usage members of SubscriptionBilled, present only when the billing has usage or corrections. */
function usageMembers(command: Pick<BillDue, 'usage' | 'corrections' | 'bookAt' | 'usageLines'>): Partial<SubscriptionBilled['data']> {
  const usage = command.usage ?? [];
  const corrections = command.corrections ?? [];
  if (usage.length === 0 && corrections.length === 0) return {};
  const bookAt = usage.length > 0 && command.bookAt != null ? command.bookAt.toISOString() : null;
  return { usage, corrections, bookAt, usageLines: command.usageLines ?? { first: 0, count: 0 } };
}

export interface BookUsageInvoice {
  readonly subscriptionId: string;
  readonly invoiceId: string;
  /** The usage of the draft's event_based charges, re-rated at the end of the grace period. */
  readonly usage: readonly UsageCharge[];
}

/** The pending draft whose grace period has ended first, at now; null when none is due. */
export function dueBooking(
  state: SubscriptionState,
  now: Date,
): { invoiceId: string; billAt: string; bookAt: string; usage: readonly UsageCharge[]; usageLines: UsageLineRange } | null {
  if (state.status === 'none') return null;
  const due = (state.pendingBookings ?? []).filter((booking) => isDueBy(booking.bookAt, now));
  return due.sort((a, b) => Date.parse(a.bookAt) - Date.parse(b.bookAt))[0] ?? null;
}

/** Books a draft kept open for late usage once its grace period has ended: refused (409) when it is not pending or not yet due. */
export function decideBookUsageInvoice(command: BookUsageInvoice, state: SubscriptionState, meta: CommandMetadata): SubscriptionInvoiceBooked[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  const booking = (subscription.pendingBookings ?? []).find((pending) => pending.invoiceId === command.invoiceId);
  if (!booking || !isDueBy(booking.bookAt, meta.now)) {
    throw new ConflictError('subscription-billing-not-due', `invoice ${command.invoiceId} is not waiting to be booked at ${meta.now.toISOString()}`);
  }
  return [
    {
      type: 'SubscriptionInvoiceBooked',
      schemaVersion: 1,
      data: { subscriptionId: subscription.id, invoiceId: booking.invoiceId, billAt: booking.billAt, usage: command.usage, bookedAt: meta.now.toISOString() },
    },
  ];
}

export interface AdvanceSubscription {
  readonly subscriptionId: string;
}

/**
 * Records the renewals and the end that fall due up to now without a charge
 * (only one-time items left, an advance-only subscription ending at term end, …).
 * Stops at the first due instant that has charges: those go through
 * decideBillDue, so events stay in billAt order. Nothing due: no events.
 */
export function decideAdvanceSubscription(command: AdvanceSubscription, state: SubscriptionState, meta: CommandMetadata): SubscriptionEvent[] {
  let current = existingSubscription(state, command.subscriptionId) as SubscriptionState;
  const events: SubscriptionEvent[] = [];
  for (let due = nextDue(current); due !== null && !billsInvoice(due) && isDueBy(due.billAt, meta.now); due = nextDue(current)) {
    const subscription = current as Subscription;
    const decided = due.renewal !== null ? [renewedEvent(subscription, due.renewal, due.billAt)] : [endedEvent(subscription, due.billAt)];
    events.push(...decided);
    current = decided.reduce(evolveSubscription, current);
  }
  return events;
}

function renewedEvent(subscription: Subscription, term: { start: string; end: string }, at: Date): SubscriptionRenewed {
  return { type: 'SubscriptionRenewed', schemaVersion: 1, data: { subscriptionId: subscription.id, term, renewedAt: at.toISOString() } };
}

function endedEvent(subscription: Subscription, at: Date): SubscriptionEnded {
  return { type: 'SubscriptionEnded', schemaVersion: 1, data: { subscriptionId: subscription.id, endedAt: at.toISOString() } };
}

// ---------------------------------------------------------------- trials

/** subscription.trial_will_end is announced this many days before the trial ends. */
export const TRIAL_NOTICE_DAYS = 3;

/**
 * The trial's clock-driven instants: the notice (the start of the day TRIAL_NOTICE_DAYS before its end, never
 * before its first day) and its end (the start of its end day). None when there is no running trial, or when the
 * subscription ends within the trial (cancelled in it: it ends instead of turning into a paid subscription).
 */
function trialInstants(state: SubscriptionState): { announceAt: Date | null; endAt: Date } | null {
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

/**
 * The engine's trial step at now, before any billing: the notice once its instant has come, then the trial's end
 * once its day has come (its first charges bill next, at the same instant) — exactly once each, as each is
 * recorded on the stream. Both are due when the clock reaches the end without having stopped at the notice (an
 * advance landing on the end or passing it): the notice is sent all the same, first, so what is recorded does not
 * depend on the steps the clock took. Nothing due: no events.
 */
export function decideAdvanceTrial(command: AdvanceSubscription, state: SubscriptionState, meta: CommandMetadata): SubscriptionEvent[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  const instants = trialInstants(subscription);
  if (instants === null || !trialRunning(subscription)) return [];
  const { trial } = subscription;
  const events: SubscriptionEvent[] = [];
  if (instants.announceAt !== null && isDueBy(instants.announceAt, meta.now)) {
    events.push({
      type: 'SubscriptionTrialEndAnnounced',
      schemaVersion: 1,
      data: { subscriptionId: subscription.id, trialEnd: trial.end, announcedAt: meta.now.toISOString() },
    } satisfies SubscriptionTrialEndAnnounced);
  }
  if (isDueBy(instants.endAt, meta.now)) {
    events.push({
      type: 'SubscriptionTrialEnded',
      schemaVersion: 1,
      data: { subscriptionId: subscription.id, anchor: trial.end, early: false, endedAt: instants.endAt.toISOString() },
    } satisfies SubscriptionTrialEnded);
  }
  return events;
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

export interface CancelUsageEvent {
  readonly subscriptionId: string;
  /** The usage event as it was recorded (usage_events). */
  readonly eventId: string;
  readonly metricCode: string;
  readonly occurredAt: Date;
}

/**
 * Cancels a usage event while its period is open: not billed yet, or billed
 * on a draft still in its grace period (re-rated when it is booked). Once the
 * period is on a booked invoice it is `usage-event-billed` (409): a booked
 * invoice never changes.
 */
export function decideCancelUsageEvent(command: CancelUsageEvent, state: SubscriptionState, meta: CommandMetadata): UsageEventCancelled[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  const item = subscription.items.find(
    (candidate) =>
      candidate.schedule.purchase === 'recurring' && candidate.schedule.billingTiming === 'event_based' && candidate.schedule.metricCode === command.metricCode,
  );
  const date = localDateOf(command.occurredAt, subscription.timeZone);
  const billedThrough = item === undefined ? undefined : subscription.billedThrough[item.id];
  const onDraft = (subscription.pendingBookings ?? []).some((booking) =>
    booking.usage.some((charge) => charge.itemId === item?.id && charge.period.start <= date && date <= charge.period.end),
  );
  if (item === undefined || (billedThrough !== undefined && date <= billedThrough && !onDraft)) {
    throw new ConflictError(
      'usage-event-billed',
      `usage event '${command.eventId}' counts in a period billed on a booked invoice (${date}): it can no longer be cancelled`,
    );
  }
  return [
    {
      type: 'UsageEventCancelled',
      schemaVersion: 1,
      data: {
        subscriptionId: subscription.id,
        eventId: command.eventId,
        metricCode: command.metricCode,
        timestamp: command.occurredAt.toISOString(),
        cancelledAt: meta.now.toISOString(),
      },
    },
  ];
}

export interface RecordBillingFailure {
  readonly subscriptionId: string;
  readonly billAt: Date;
  readonly reason: string;
  /** The item whose charge could not be priced or rated: only it waits for the retry. Absent: the billing as a whole. */
  readonly itemId?: string;
}

/** The first retry waits a minute; each further one doubles the wait, up to a day. */
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 86_400_000;

/**
 * Records that billing the charges due at billAt failed, and when to try
 * again: billing never stops scheduling a subscription because of one
 * failure. Nothing is recorded for an instant that is no longer due.
 */
export function decideRecordBillingFailure(command: RecordBillingFailure, state: SubscriptionState, meta: CommandMetadata): SubscriptionBillingFailed[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  const { itemId } = command;
  const billAt = command.billAt.toISOString();
  let previous: BillingFailure | null | undefined;
  if (itemId === undefined) {
    const due = nextDue(subscription);
    if (due === null || due.billAt.getTime() !== command.billAt.getTime()) return [];
    previous = subscription.billingFailure;
  } else {
    const item = subscription.items.find((candidate) => candidate.id === itemId);
    const charge = item === undefined ? null : nextCharge(subscription, item);
    if (charge === null || charge.billAt.getTime() !== command.billAt.getTime()) return [];
    previous = subscription.itemFailures?.[itemId];
  }
  const attempts = previous?.billAt === billAt ? previous.attempts + 1 : 1;
  const wait = Math.min(FIRST_RETRY_MS * 2 ** Math.min(attempts - 1, 20), LONGEST_RETRY_MS);
  return [
    {
      type: 'SubscriptionBillingFailed',
      schemaVersion: 1,
      data: {
        subscriptionId: subscription.id,
        billAt,
        reason: command.reason,
        attempts,
        retryAt: new Date(meta.now.getTime() + wait).toISOString(),
        failedAt: meta.now.toISOString(),
        ...(itemId === undefined ? {} : { itemId }),
      },
    },
  ];
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

// ---------------------------------------------------------------- cancel now

export interface CancelNow {
  readonly subscriptionId: string;
  /** Credit the unused advance-billed days pro rata on the final invoice. */
  readonly prorate: boolean;
}

/** What a cancel now bills at once, on its final invoice (billAt: the cancellation). */
export interface FinalBilling {
  readonly billAt: Date;
  /** The final arrears and usage pieces: from the first unbilled day to today (cancelAt). */
  readonly charges: readonly ItemCharge[];
  /** The proration lines pending, then with prorate per advance item the credit for the days after today of the piece it was billed in advance. */
  readonly prorations: readonly ProrationLine[];
}

/** An item as its proration lines name it. */
export function proratedItem({ priceId, priceName, product, quantity, taxCode }: SubscriptionItem): ProratedItem {
  return { priceId, priceName, product, quantity, taxCode };
}

/**
 * The credit for the advance-billed remainder of an item from day `from` (inclusive) to the end of the last
 * piece it was billed in advance: fullAmount × days ÷ days in its full period, rounded half away from zero
 * once (`proRate`, the rule of every pro-rated line). Null when nothing billed in advance is left from `from`
 * (not an advance item, nothing billed yet, or the piece ends before it).
 */
export function advanceCredit(subscription: Subscription, item: SubscriptionItem, from: string, reason: ProrationReason): ProrationLine | null {
  const piece = subscription.advanceBilled?.[item.id];
  if (piece === undefined || piece.period.end < from) return null;
  const start = maxDate(from, piece.period.start);
  const days = daysInclusive(start, piece.period.end);
  return {
    itemId: item.id,
    kind: 'credit',
    reason,
    item: proratedItem(item),
    period: { start, end: piece.period.end },
    days,
    daysInFullPeriod: piece.daysInFullPeriod,
    fullAmount: piece.fullAmount,
    amount: Number(proRate(BigInt(piece.fullAmount), days, piece.daysInFullPeriod)),
  };
}

/**
 * The final invoice of a subscription cancelled now (cancelAt today): the arrears and usage pieces that end
 * today, billed at once rather than at midnight, and with `prorate` a credit per advance item whose billed
 * piece runs past today — fullAmount × unused days ÷ days in its full period, rounded half away from zero once
 * (`proRate`, the rule of every pro-rated line). Throws `subscription-billing-pending` (409) while a charge,
 * renewal or end due by now waits for the billing engine: the final invoice bills what comes after it.
 */
export function finalBilling(cancelled: Subscription, now: Date, prorate: boolean): FinalBilling {
  refuseBilledSince(cancelled, now);
  const due = nextDue(cancelled);
  if (due !== null && due.billAt <= now) {
    throw new ConflictError(
      'subscription-billing-pending',
      `subscription ${cancelled.id} has billing due at ${due.billAt.toISOString()} that the billing engine has yet to book; try again shortly`,
    );
  }
  const tomorrow = addDays(cancelled.cancelAt!, 1);
  const charges = (due?.charges ?? []).map((charge) => ({ ...charge, billAt: now }));
  const credits = prorate ? cancelled.items.flatMap((item) => advanceCredit(cancelled, item, tomorrow, 'cancellation') ?? []) : [];
  return { billAt: now, charges, prorations: [...(cancelled.pendingProrations ?? []), ...credits] };
}

export interface BillFinal extends CancelNow {
  /** The invoice the caller creates for the final billing. */
  readonly invoiceId: string;
  /** Per charged item: the full-period amount (an event_based item: its rated usage), as decideBillDue takes it. */
  readonly amounts: Readonly<Record<string, bigint>>;
  readonly usage?: readonly UsageCharge[];
  readonly corrections?: readonly UsageCorrection[];
  readonly usageLines?: UsageLineRange;
}

/**
 * Records a cancel-now's final invoice (finalBilling at now) on a subscription cancelled today: the arrears
 * and usage lines and the credits, booked at once (no usage grace period: service is over). Nothing to bill:
 * no events. Refused when not cancelled to end today (`subscription-not-cancelled`).
 */
export function decideBillFinal(command: BillFinal, state: SubscriptionState, meta: CommandMetadata): SubscriptionEvent[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (subscription.status === 'ended') throw endedError(subscription);
  if (subscription.cancelAt !== localDateOf(meta.now, subscription.timeZone)) {
    throw new ConflictError('subscription-not-cancelled', `subscription ${subscription.id} is not cancelled to end today`);
  }
  const final = finalBilling(subscription, meta.now, command.prorate);
  if (!billsInvoice(final)) return [];
  return billedEvents(subscription, final, { ...command, bookAt: null }, meta);
}
