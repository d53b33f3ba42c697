import { divideRoundingHalfAwayFromZero, parseScaledDecimal, splitByLargestRemainder } from '@billing/shared-kernel';

/**
 * A subscription's discounts (coupons redeemed on it) and the one place their
 * cents are worked out. On an invoice each discount takes its part of the
 * eligible lines' amounts, in the order the discounts were given, each from
 * what the earlier ones left:
 * - a percentage: per line, `left × percentOff ÷ 100`, rounded half away from zero;
 * - an amount off: min(amountOff, Σ left over the eligible lines), spread over
 *   them in proportion to what each has left by the largest-remainder rule
 *   (ties to the earlier line): it adds up exactly and never takes a line below zero.
 * Eligible: lines with a positive amount of the coupon's appliesTo products
 * (any product without appliesTo); correction lines (late usage) never.
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

/** A line as discounting sees it: its amount (after pro-rating) and its product, null for a line no coupon discounts. */
export interface DiscountableLine {
  readonly amount: bigint;
  readonly productId: string | null;
}

export type DiscountTerms = Pick<SubscriptionDiscount, 'percentOff' | 'amountOff' | 'productIds'>;

const PERCENT_SCALE = 2;
const HUNDRED_PERCENT = 10000n;

/** Per line, what the discounts take off it altogether (≥ 0, never more than its amount). */
export function discountAmounts(lines: readonly DiscountableLine[], discounts: readonly DiscountTerms[]): bigint[] {
  const start = lines.map((line) => (line.amount > 0n && line.productId !== null ? line.amount : 0n));
  const left = [...start];
  for (const discount of discounts) {
    const eligible = lines.flatMap((line, index) =>
      left[index] > 0n && (discount.productIds === null || discount.productIds.includes(line.productId!)) ? [index] : [],
    );
    if (eligible.length === 0) continue;
    if (discount.percentOff !== null) {
      const percent = parseScaledDecimal(discount.percentOff, PERCENT_SCALE, '/percentOff');
      for (const index of eligible) left[index] -= divideRoundingHalfAwayFromZero(left[index] * percent, HUNDRED_PERCENT);
    } else {
      const weights = eligible.map((index) => left[index]);
      const total = weights.reduce((sum, weight) => sum + weight, 0n);
      const off = BigInt(discount.amountOff ?? 0) < total ? BigInt(discount.amountOff ?? 0) : total;
      splitByLargestRemainder(off, weights).forEach((share, position) => (left[eligible[position]] -= share));
    }
  }
  return start.map((amount, index) => amount - left[index]);
}

/**
 * The discounts an invoice gets: those still applying whose window holds the
 * invoice's period start (`periodStart`: its earliest charged period's first
 * day), and whose minimum the invoice's lines reach (`subtotal`, before discounts).
 */
export function discountsFor(discounts: readonly SubscriptionDiscount[] | undefined, periodStart: string, subtotal: bigint): SubscriptionDiscount[] {
  return (discounts ?? []).filter(
    (discount) =>
      discount.endedAt === null &&
      periodStart >= discount.start &&
      (discount.end === null || periodStart <= discount.end) &&
      (discount.minimumAmount === null || subtotal >= BigInt(discount.minimumAmount)),
  );
}
