/**
 * A subscription's discounts (coupons redeemed on it) and which invoices get
 * them. Their cents are the shared kernel's discountAmounts (the one place,
 * shared with customers' and draft invoices' coupons); on a subscription
 * invoice the eligible lines are its charge lines, correction lines (late
 * usage) never.
 */

export type DiscountDuration = 'once' | 'repeating' | 'forever';

export interface SubscriptionDiscount {
  /** The redemption's id: DELETE /subscriptions/{id}/discounts/{discountId}. */
  readonly id: string;
  readonly couponId: string;
  readonly promotionCodeId: string | null;
  readonly promotionCode: string | null;
  readonly name: string;
  /** 0.01–100 with at most 2 decimals; null with amountOff. */
  readonly percentOff: number | null;
  /** Minor units of the subscription's currency; null with percentOff. */
  readonly amountOff: number | null;
  readonly duration: DiscountDuration;
  readonly durationInMonths: number | null;
  /** Null: every product's lines are eligible. */
  readonly productIds: readonly string[] | null;
  /** An invoice whose lines total less than this before discounts is not discounted; null: no minimum. */
  readonly minimumAmount: number | null;
  /** The first day an invoice's period may start on: the term's start for a discount applied with the subscription. */
  readonly start: string;
  /**
   * The last day (inclusive) an invoice's period may start on: for repeating,
   * start + durationInMonths months − 1 day; for once, the date of the invoice
   * that used it; the day it was ended early; null while open-ended.
   */
  readonly end: string | null;
  /** When it stopped discounting (used, or ended early); null while it applies. */
  readonly endedAt: string | null;
}

/**
 * A customer record's discount as a subscription invoice sees it (the
 * invoicing context's CustomerDiscount, structurally): its window is the
 * customer's, and an amount off (or a minimum) is in `currency`.
 */
export interface CustomerDiscountTerms extends SubscriptionDiscount {
  /** Uppercase ISO 4217: only invoices in it get the discount; null: any currency. */
  readonly currency: string | null;
}

/**
 * The discounts an invoice gets: those still applying whose window holds the
 * invoice's period start (`periodStart`: its earliest charged period's first
 * day), and whose minimum the invoice's lines reach (`subtotal`, before discounts).
 */
export function discountsFor(discounts: readonly SubscriptionDiscount[] | undefined, periodStart: string, subtotal: bigint): SubscriptionDiscount[] {
  return (discounts ?? []).filter((discount) => inWindow(discount, periodStart) && reachesMinimum(discount, subtotal));
}

/**
 * A customer's discounts on one of its subscription invoices: those whose
 * window holds the invoice's period start, in the invoice's currency (or any),
 * apply when the invoice reaches their minimum; the `once` ones among them are
 * used by the invoice whether or not it reaches it (as a subscription's once
 * discount is).
 */
export function customerDiscountsFor(
  discounts: readonly CustomerDiscountTerms[],
  periodStart: string,
  subtotal: bigint,
  currency: string,
): { readonly applied: CustomerDiscountTerms[]; readonly used: string[] } {
  const open = discounts.filter((discount) => inWindow(discount, periodStart) && (discount.currency === null || discount.currency === currency));
  return {
    applied: open.filter((discount) => reachesMinimum(discount, subtotal)),
    used: open.filter((discount) => discount.duration === 'once').map((discount) => discount.id),
  };
}

function inWindow(discount: SubscriptionDiscount, periodStart: string): boolean {
  return discount.endedAt === null && periodStart >= discount.start && (discount.end === null || periodStart <= discount.end);
}

function reachesMinimum(discount: SubscriptionDiscount, subtotal: bigint): boolean {
  return discount.minimumAmount === null || subtotal >= BigInt(discount.minimumAmount);
}
