import {
  addDays,
  CommandMetadata,
  ConflictError,
  FieldError,
  formatScaledDecimal,
  isSupportedCurrency,
  NotFoundError,
  parseScaledDecimal,
  QUANTITY_SCALE,
  ValidationError,
} from '@billing/shared-kernel';
import { LAST_CALENDAR_DATE, maxDate, minDate, validDate } from './calendar';
import { nthPeriod, periodAt, termEnd, termLengthOf } from './periods';
import {
  existingSubscription,
  isOverAt,
  MAX_SUBSCRIPTION_ITEMS,
  MAX_TRIAL_DAYS,
  nextTerm,
  renewsAfterTerm,
  Subscription,
  SubscriptionState,
  trialRunning,
} from './subscription';
import { CancelSubscription, CreateSubscription, EndTrial, ReactivateSubscription, RedeemedDiscountTerms, RequestedItem } from './subscription-commands';
import {
  ItemSchedule,
  SubscriptionCancelled,
  SubscriptionCreated,
  SubscriptionDiscountApplied,
  SubscriptionDiscountEnded,
  SubscriptionReactivated,
  SubscriptionTrialEnded,
  Term,
} from './subscription-events';
import { localDateOf, validTimeZone } from './time-zone';

// ---------------------------------------------------------------- create

/** Every domain problem of the request at once, each at its JSON pointer. */
export function decideCreateSubscription(command: CreateSubscription, state: SubscriptionState, meta: CommandMetadata): SubscriptionCreated[] {
  if (state.status !== 'none') throw new ConflictError('subscription-exists', `subscription ${command.subscriptionId} already exists`);
  const errors: FieldError[] = [];
  /** The codes of the errors `check` caught: a request whose every error has one specific code (too-many-decimals) answers with it. */
  const codes = new Set<string>();
  let coded = 0;
  const check = <T>(validate: () => T): T | undefined => {
    try {
      return validate();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.errors);
      codes.add(error.code);
      coded += error.errors.length;
      return undefined;
    }
  };

  const currency = typeof command.currency === 'string' ? command.currency.toLowerCase() : '';
  if (!isSupportedCurrency(currency)) errors.push({ pointer: '/currency', detail: 'must be a supported ISO 4217 currency code' });
  const timeZone = check(() => validTimeZone(command.timeZone ?? 'UTC', '/timeZone'));
  const start = check(() => validDate(command.term.start, '/term/start'));
  const end = command.term.end == null ? null : check(() => validDate(command.term.end, '/term/end'));
  if (start !== undefined && end != null && end < start) errors.push({ pointer: '/term/end', detail: 'must not be before term.start' });
  if (command.items.length < 1 || command.items.length > MAX_SUBSCRIPTION_ITEMS) {
    errors.push({ pointer: '/items', detail: `must have between 1 and ${MAX_SUBSCRIPTION_ITEMS} items` });
  }
  const items = command.items.map((item, i) => {
    const quantity = check(() => validQuantity(item.quantity, `/items/${i}/quantity`));
    const price = check(() => subscribablePrice(item, isSupportedCurrency(currency) ? currency : null, `/items/${i}/priceId`));
    return { item, quantity, price };
  });
  if (typeof command.handle !== 'string' || command.handle.trim() === '') errors.push({ pointer: '/handle', detail: 'must not be blank' });
  const trialEnd = start === undefined ? undefined : check(() => trialEndOf(command, start, end ?? null));
  const anchor = trialEnd ?? start;
  if (anchor !== undefined) {
    items.forEach(({ price }, i) => price && check(() => firstPeriodInCalendar(anchor, price.schedule, `/items/${i}/priceId`)));
  }
  if (errors.length > 0) {
    const code = codes.size === 1 && coded === errors.length ? [...codes][0] : 'validation-failed';
    throw new ValidationError('The subscription request is invalid.', errors, code);
  }

  const term: Term = { start: start!, end: end ?? null };
  return [
    {
      type: 'SubscriptionCreated',
      schemaVersion: 1,
      data: {
        subscriptionId: command.subscriptionId,
        handle: command.handle,
        customer: command.customer,
        currency,
        timeZone: timeZone!,
        term,
        termLength: term.end === null ? null : termLengthOf(term.start, term.end),
        autoRenewal: command.autoRenewal ?? false,
        paymentMethod: command.paymentMethod ?? null,
        ...(command.customerId ? { customerId: command.customerId } : {}),
        ...(trialEnd ? { trialEnd } : {}),
        items: items.map(({ item, quantity, price }) => ({
          id: meta.newId(),
          priceId: item.priceId,
          priceName: price!.name,
          product: price!.product,
          quantity: quantity!,
          taxCode: item.taxCode ?? null,
          schedule: price!.schedule,
        })),
        createdAt: meta.now.toISOString(),
      },
    },
  ];
}

/**
 * The day a requested trial ends (the first day billed), or null without one: trialEnd (after term.start) or
 * term.start + trialDays, at most 730 days after term.start and within a termed subscription's first term.
 */
function trialEndOf(command: CreateSubscription, start: string, end: string | null): string | null {
  const { trialEnd, trialDays } = command;
  if (trialEnd != null && trialDays != null) throw ValidationError.at('/trialDays', 'trialEnd and trialDays exclude each other: give one of them');
  if (trialDays != null && (!Number.isInteger(trialDays) || trialDays < 1 || trialDays > MAX_TRIAL_DAYS)) {
    throw ValidationError.at('/trialDays', `must be an integer from 1 to ${MAX_TRIAL_DAYS}`);
  }
  const pointer = trialDays != null ? '/trialDays' : '/trialEnd';
  const last = trialDays != null ? addDays(start, trialDays) : trialEnd == null ? null : validDate(trialEnd, pointer);
  if (last === null) return null;
  if (last <= start) throw ValidationError.at(pointer, 'must be after term.start');
  if (last > addDays(start, MAX_TRIAL_DAYS)) throw ValidationError.at(pointer, `must be at most ${MAX_TRIAL_DAYS} days after term.start`);
  if (end !== null && last > end) throw ValidationError.at(pointer, 'the trial must end within the first term (on or before term.end)');
  return last;
}

/** An item's quantity: > 0, at most 4 decimals, and at most a billion (beyond, no price could bill it within the amount range). */
export const MAX_SUBSCRIPTION_QUANTITY = 1_000_000_000;

export function validQuantity(value: number | string, pointer: string): string {
  const scaled = parseScaledDecimal(value, QUANTITY_SCALE, pointer);
  if (scaled <= 0n) throw ValidationError.at(pointer, 'must be greater than 0');
  if (scaled > BigInt(MAX_SUBSCRIPTION_QUANTITY) * 10n ** BigInt(QUANTITY_SCALE))
    throw ValidationError.at(pointer, `must be at most ${MAX_SUBSCRIPTION_QUANTITY}`);
  return formatScaledDecimal(scaled, QUANTITY_SCALE);
}

/** A recurring item's first period must end within the calendar (a price of thousands of years would not). */
function firstPeriodInCalendar(start: string, schedule: ItemSchedule, pointer: string): void {
  if (schedule.purchase !== 'recurring') return;
  try {
    if (nthPeriod(start, schedule, 1).end <= LAST_CALENDAR_DATE) return;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  throw ValidationError.at(
    pointer,
    `the price's billing period (${schedule.termCount} ${schedule.termUnit}) runs past the calendar's last date ${LAST_CALENDAR_DATE}`,
  );
}

export function subscribablePrice(
  item: RequestedItem,
  currency: string | null,
  pointer: string,
): { name: string; product: { id: string; name: string }; schedule: ItemSchedule } {
  const { price } = item;
  if (price === null) throw ValidationError.at(pointer, `no price ${item.priceId} exists in this environment`);
  if (price.archived) throw ValidationError.at(pointer, `price ${price.id} is archived: only active prices can be subscribed to`);
  if (price.billingTiming === 'event_based' && (!price.metricCode || price.metricExists !== true)) {
    throw ValidationError.at(
      pointer,
      `price ${price.id} bills the billable metric '${price.metricCode ?? ''}', which does not exist in this environment (POST /billable-metrics)`,
    );
  }
  if (price.product === null) throw ValidationError.at(pointer, `price ${price.id} belongs to no product: only a product's prices can be subscribed to`);
  if (currency !== null && !price.currencies.includes(currency)) {
    throw ValidationError.at(pointer, `price ${price.id} has no pricing in '${currency}' (it has: ${[...price.currencies].sort().join(', ')})`);
  }
  const { name, product, purchase, termCount, termUnit, billingTiming } = price;
  if (purchase === 'one_time') return { name, product, schedule: { purchase } };
  if (termCount === null || termUnit === null) throw ValidationError.at(pointer, `recurring price ${price.id} has no billing term`);
  if (billingTiming === 'event_based') return { name, product, schedule: { purchase, termCount, termUnit, billingTiming, metricCode: price.metricCode! } };
  return { name, product, schedule: { purchase, termCount, termUnit, billingTiming } };
}

// ---------------------------------------------------------------- cancel and reactivate

/**
 * Service continues to the end of the current billing period at today (the
 * latest current-period end among the recurring items, and never before a day
 * already billed), capped at the end of the term in force today. Only one-time
 * items: service ends today (or on the first day, if not started).
 */
export function decideCancelSubscription(command: CancelSubscription, state: SubscriptionState, meta: CommandMetadata): SubscriptionCancelled[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (isOverAt(subscription, meta.now)) throw endedError(subscription);
  const today = localDateOf(meta.now, subscription.timeZone);
  if (command.at === 'now') {
    // Cancelled already to end by today: nothing changes (a repeated request answers the same).
    if (subscription.cancelAt !== null && subscription.cancelAt <= today) return [];
    const event = cancelledEvent(subscription, today, meta);
    return [{ ...event, data: { ...event.data, at: 'now' } }];
  }
  if (subscription.cancelAt !== null) return [];
  if (trialRunning(subscription) && today < subscription.trial.end) return [cancelledEvent(subscription, addDays(subscription.trial.end, -1), meta)];
  let cancelAt = maxDate(today, subscription.anchor);
  const recurring = subscription.items.flatMap(({ schedule }) => (schedule.purchase === 'recurring' ? [schedule] : []));
  if (recurring.length > 0) cancelAt = recurring.map((schedule) => periodAt(subscription.anchor, schedule, today).end).reduce(maxDate);
  cancelAt = Object.values(subscription.billedThrough).reduce(maxDate, cancelAt);
  const termEnd = termEndInForce(subscription, today);
  if (termEnd !== null) cancelAt = minDate(cancelAt, termEnd);
  return [cancelledEvent(subscription, cancelAt, meta)];
}

function cancelledEvent(subscription: Subscription, cancelAt: string, meta: CommandMetadata): SubscriptionCancelled {
  return { type: 'SubscriptionCancelled', schemaVersion: 1, data: { subscriptionId: subscription.id, cancelAt, cancelledAt: meta.now.toISOString() } };
}

/**
 * PUT /subscriptions/{id}/end-trial: the trial ends now; today (in the subscription's time zone, never before
 * term.start) becomes the first day billed and the billing anchor. Refused (409) once the trial is over
 * (`subscription-not-trialing`) or the subscription has ended.
 */
export function decideEndTrial(command: EndTrial, state: SubscriptionState, meta: CommandMetadata): SubscriptionTrialEnded[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (isOverAt(subscription, meta.now)) throw endedError(subscription);
  const today = localDateOf(meta.now, subscription.timeZone);
  if (!trialRunning(subscription) || today >= subscription.trial.end) {
    throw new ConflictError('subscription-not-trialing', `subscription ${subscription.id} has no running trial`);
  }
  const anchor = maxDate(today, subscription.trial.start);
  return [
    { type: 'SubscriptionTrialEnded', schemaVersion: 1, data: { subscriptionId: subscription.id, anchor, early: true, endedAt: meta.now.toISOString() } },
  ];
}

export function decideReactivateSubscription(command: ReactivateSubscription, state: SubscriptionState, meta: CommandMetadata): SubscriptionReactivated[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (isOverAt(subscription, meta.now)) throw endedError(subscription);
  if (subscription.cancelAt === null) {
    throw new ConflictError('subscription-not-cancelled', `subscription ${subscription.id} is not cancelled`);
  }
  return [{ type: 'SubscriptionReactivated', schemaVersion: 1, data: { subscriptionId: subscription.id, reactivatedAt: meta.now.toISOString() } }];
}

export function endedError(subscription: Subscription): ConflictError {
  return new ConflictError('subscription-ended', `subscription ${subscription.id} has ended`);
}

/**
 * The end of the term holding `today`, counting renewals the billing engine
 * has not recorded yet, so a cancellation does not depend on how far the
 * engine has got. Null for an evergreen term.
 */
function termEndInForce(subscription: Subscription, today: string): string | null {
  let current = subscription;
  while (current.term.end !== null && today > current.term.end && renewsAfterTerm(current)) {
    current = { ...current, term: nextTerm(current), renewals: current.renewals + 1 };
  }
  return current.term.end;
}

// ---------------------------------------------------------------- discounts

/**
 * Discounts redeemed with the subscription start with its term: `once` waits
 * for the first invoice billed, `repeating` covers invoices whose period
 * starts within durationInMonths months of the term's start, `forever` all.
 */
export function decideApplyDiscounts(
  command: { subscriptionId: string; discounts: readonly RedeemedDiscountTerms[]; start?: string },
  state: SubscriptionState,
  meta: CommandMetadata,
): SubscriptionDiscountApplied[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  // Redeemed with a change: from the change's first day.
  const start = command.start ?? subscription.term.start;
  return command.discounts.map((terms) => ({
    type: 'SubscriptionDiscountApplied',
    schemaVersion: 1,
    data: {
      subscriptionId: subscription.id,
      discount: {
        ...terms,
        start,
        end: terms.duration === 'repeating' ? termEnd(start, { count: terms.durationInMonths!, unit: 'month' }, 1) : null,
        endedAt: null,
      },
      appliedAt: meta.now.toISOString(),
    },
  }));
}

/** DELETE /subscriptions/{id}/discounts/{discountId}: no invoice billed from now on gets it; its end is today. */
export function decideEndDiscount(
  command: { subscriptionId: string; discountId: string },
  state: SubscriptionState,
  meta: CommandMetadata,
): SubscriptionDiscountEnded[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  const discount = (subscription.discounts ?? []).find((candidate) => candidate.id === command.discountId);
  if (discount === undefined) throw new NotFoundError('discount', command.discountId);
  if (discount.endedAt !== null) throw new ConflictError('discount-ended', `discount ${discount.id} has ended already (${discount.end})`);
  if (isOverAt(subscription, meta.now)) throw endedError(subscription);
  const today = localDateOf(meta.now, subscription.timeZone);
  return [
    {
      type: 'SubscriptionDiscountEnded',
      schemaVersion: 1,
      data: {
        subscriptionId: subscription.id,
        discountId: discount.id,
        reason: 'removed',
        end: discount.end !== null && discount.end < today ? discount.end : today,
        endedAt: meta.now.toISOString(),
      },
    },
  ];
}
