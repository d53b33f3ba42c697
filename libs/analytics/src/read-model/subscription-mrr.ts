import { amountForScaledQuantity, ExistingPrice, PriceState } from '@billing/catalog';
import { discountAmounts, parseScaledDecimal, QUANTITY_SCALE } from '@billing/shared-kernel';
import { SubscriptionState } from '@billing/subscriptions';
import { monthlyAmount } from '../domain/mrr';

/**
 * Monthly recurring revenue, the one place its cents are worked out.
 *
 * A subscription's MRR: its recurring fee items (`advance` or `arrears`; usage-based
 * `event_based` items and one-time items are not MRR), each priced at its quantity
 * with its price's current pricing in the subscription's currency, normalised to a
 * month and rounded half away from zero per item (see `monthlyAmount`), then less its
 * recurring discounts (`forever`, or `repeating` within their window; a `once`
 * discount is not recurring), before tax. Only an `active` subscription (or one
 * `cancelled` whose service has not ended yet) has MRR; trialing and ended ones have 0.
 */
/** The subscription's MRR in minor units of its currency, on `day` (its local date), with the prices known then. */
export function subscriptionMrr(state: SubscriptionState, prices: ReadonlyMap<string, PriceState>, day: string): bigint {
  if (state.status !== 'active' && state.status !== 'cancelled') return 0n;
  const lines = state.items.flatMap((item) => {
    const schedule = item.schedule;
    if (schedule.purchase !== 'recurring' || schedule.billingTiming === 'event_based') return [];
    const price = prices.get(item.priceId);
    const entry = price && price.status !== 'none' ? (price as ExistingPrice).pricing[state.currency] : undefined;
    if (!price || price.status === 'none' || entry === undefined) return [];
    const full = amountForScaledQuantity((price as ExistingPrice).priceModel, entry, parseScaledDecimal(item.quantity, QUANTITY_SCALE, '/quantity'));
    return [{ amount: monthlyAmount(full, schedule.termCount, schedule.termUnit), productId: item.product.id }];
  });
  const recurring = (state.discounts ?? []).filter(
    (discount) => discount.duration !== 'once' && discount.endedAt === null && discount.start <= day && (discount.end === null || day <= discount.end),
  );
  const discounts = discountAmounts(lines, recurring);
  return lines.reduce((sum, line, index) => sum + line.amount - discounts[index], 0n);
}
