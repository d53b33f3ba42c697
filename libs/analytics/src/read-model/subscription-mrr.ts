import { amountForScaledQuantity, ExistingPrice, PriceState } from '@billing/catalog';
import { discountAmounts, parseScaledDecimal, QUANTITY_SCALE } from '@billing/shared-kernel';
import { CustomerDiscountTerms, customerDiscountsFor, discountsFor, Subscription, SubscriptionState, trialRunning } from '@billing/subscriptions';
import { monthlyAmount } from '../domain/mrr';

/** The discounts of a subscription's customer record, and the day (the customer's local date) their windows are read on. */
export interface CustomerDiscountsOn {
  readonly discounts: readonly CustomerDiscountTerms[];
  readonly day: string;
}

/**
 * Monthly recurring revenue, the one place its cents are worked out.
 *
 * A subscription's MRR: its recurring fee items (`advance` or `arrears`; usage-based `event_based` items and
 * one-time items are not MRR), each priced at its quantity with its price's current pricing in the subscription's
 * currency for a full period, less the recurring discounts a renewal invoice of them would get, then normalised to
 * a month and rounded half away from zero per item (`monthlyAmount`), before tax. The discounts are the billing
 * engine's, in its order and with its rules (subscriptions' `discountsFor`/`customerDiscountsFor`, the shared
 * kernel's `discountAmounts`): the subscription's own, then its customer record's (in the subscription's currency
 * or any), each counted while its window holds the day — the subscription's local date for its own, the customer's
 * for the customer's — and the items' full-period total reaches its minimum; `once` discounts are not recurring
 * and never count. Discounting full periods before normalising keeps an amount off a yearly invoice a twelfth a
 * month. Only an `active` subscription, or a `cancelled` one whose service has not ended and that is not in its
 * trial, has MRR: trialing, paused and ended ones count 0.
 */
export function subscriptionMrr(
  state: SubscriptionState,
  prices: ReadonlyMap<string, PriceState>,
  day: string,
  customer: CustomerDiscountsOn | null = null,
): bigint {
  if (!hasMrr(state)) return 0n;
  const lines = state.items.flatMap((item) => {
    const schedule = item.schedule;
    if (schedule.purchase !== 'recurring' || schedule.billingTiming === 'event_based') return [];
    const price = prices.get(item.priceId);
    const entry = price && price.status !== 'none' ? (price as ExistingPrice).pricing[state.currency] : undefined;
    if (!price || price.status === 'none' || entry === undefined) return [];
    const full = amountForScaledQuantity((price as ExistingPrice).priceModel, entry, parseScaledDecimal(item.quantity, QUANTITY_SCALE, '/quantity'));
    return [{ amount: full, productId: item.product.id, schedule }];
  });
  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0n);
  const applying = [
    ...discountsFor(state.discounts, day, subtotal),
    ...(customer === null ? [] : customerDiscountsFor(customer.discounts, customer.day, subtotal, state.currency.toUpperCase()).applied),
  ];
  const off = discountAmounts(
    lines,
    applying.filter((discount) => discount.duration !== 'once'),
  );
  return lines.reduce((sum, line, index) => sum + monthlyAmount(line.amount - off[index], line.schedule.termCount, line.schedule.termUnit), 0n);
}

/** Active, or cancelled with service still running outside a trial (a trial cancelled at its end stays `cancelled`, unbilled). */
function hasMrr(state: SubscriptionState): state is Subscription {
  return state.status === 'active' || (state.status === 'cancelled' && !trialRunning(state));
}
