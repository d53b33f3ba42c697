import { divideRoundingHalfAwayFromZero, splitByLargestRemainder } from './rounding';
import { parseScaledDecimal } from './scaled-decimal';

/**
 * The one place a coupon's cents are worked out on invoice lines, for every
 * invoice that carries coupons (a subscription's, a customer's, a draft's).
 * The discounts apply in the order given, each to what the earlier ones left
 * of each eligible line:
 * - a percentage: per line, `left × percentOff ÷ 100`, rounded half away from zero;
 * - an amount off: min(amountOff, Σ left over the eligible lines), spread over
 *   them in proportion to what each has left by the largest-remainder rule
 *   (ties to the earlier line): it adds up exactly and never takes a line below zero.
 * Eligible: a line with a positive amount left and, for a coupon with
 * `appliesTo` products, a product among them (a line without a product is
 * eligible only for a coupon without appliesTo).
 */

/** A line as discounting sees it: its amount before coupons and its product (null: none, e.g. a hand-written invoice line). */
export interface DiscountableLine {
  readonly amount: bigint;
  readonly productId: string | null;
}

/** What a coupon takes off and where: a percentage (2 decimals) or an amount in the invoice's currency; null productIds: every line. */
export interface DiscountTerms {
  readonly percentOff: number | null;
  readonly amountOff: number | null;
  readonly productIds: readonly string[] | null;
}

const PERCENT_SCALE = 2;
const HUNDRED_PERCENT = 10000n;

/** Per line, what the discounts take off it altogether (≥ 0, never more than its amount; 0 on a line of 0 or less). */
export function discountAmounts(lines: readonly DiscountableLine[], discounts: readonly DiscountTerms[]): bigint[] {
  const start = lines.map((line) => (line.amount > 0n ? line.amount : 0n));
  const left = [...start];
  for (const discount of discounts) {
    const eligible = lines.flatMap((line, index) => (left[index] > 0n && appliesTo(discount, line) ? [index] : []));
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

function appliesTo(discount: DiscountTerms, line: DiscountableLine): boolean {
  return discount.productIds === null || (line.productId !== null && discount.productIds.includes(line.productId));
}
