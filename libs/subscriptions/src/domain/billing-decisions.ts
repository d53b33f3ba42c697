import { addDays, assertAmountInRange, CommandMetadata, ConflictError, FieldError, isDueBy, ValidationError } from '@billing/shared-kernel';
import { billsInvoice, DueBilling, endedEvent, ItemCharge, nextCharge, nextDue, refuseBilledSince, renewedEvent, retryDue, trialInstants } from './billing';
import { AdvanceSubscription, BillDue, BillFinal, BookUsageInvoice, CancelUsageEvent, RecordBillingFailure } from './billing-commands';
import { daysInclusive, maxDate } from './calendar';
import { proRate } from './periods';
import { BillingFailure, evolveSubscription, existingSubscription, Subscription, SubscriptionState, trialRunning } from './subscription';
import { endedError } from './subscription-decisions';
import {
  ProratedItem,
  ProrationLine,
  ProrationReason,
  SubscriptionBilled,
  SubscriptionBillingFailed,
  SubscriptionEvent,
  SubscriptionInvoiceBooked,
  SubscriptionItem,
  SubscriptionTrialEndAnnounced,
  SubscriptionTrialEnded,
  UsageCharge,
  UsageEventCancelled,
  UsageLineRange,
} from './subscription-events';
import { localDateOf } from './time-zone';

/** The billing deciders of the Subscription aggregate: what billing, booking, advancing, a billing failure and a cancel now record. */

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

// ---------------------------------------------------------------- cancel now

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
