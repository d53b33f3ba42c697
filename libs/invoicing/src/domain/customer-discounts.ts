import { DomainEvent } from '@billing/shared-kernel';

/**
 * A customer record's discounts: coupons redeemed on the customer (POST and
 * PUT /customers with `discounts`) that every subscription invoice of the
 * customer gets, after the subscription's own discounts. Their window is in
 * the customer's time zone, from the day they were applied:
 * - `repeating`: invoices whose period starts from `start` to `end` = start +
 *   durationInMonths months − 1 day;
 * - `forever`: invoices whose period starts on or after `start`;
 * - `once`: the first such invoice made for the customer (whichever
 *   subscription it bills), which uses it up (CustomerDiscountEnded, `used`).
 * An amount off (and a promotion code's minimum) is in the currency it was
 * redeemed in (the customer's currency then), and only invoices in that
 * currency get it; a percentage without a minimum applies in any currency.
 */

export const MAX_CUSTOMER_DISCOUNTS = 5;

export interface CustomerDiscount {
  /** The redemption's id: DELETE /customers/{id}/discounts/{discountId}. */
  readonly id: string;
  readonly couponId: string;
  readonly promotionCodeId: string | null;
  readonly promotionCode: string | null;
  readonly name: string;
  /** 0.01–100 with at most 2 decimals; null with amountOff. */
  readonly percentOff: number | null;
  /** Minor units of `currency`; null with percentOff. */
  readonly amountOff: number | null;
  /** Uppercase ISO 4217: what amountOff and minimumAmount are in (only invoices in it get the discount); null: any currency. */
  readonly currency: string | null;
  readonly duration: 'once' | 'repeating' | 'forever';
  readonly durationInMonths: number | null;
  /** Null: every product's lines are eligible. */
  readonly productIds: readonly string[] | null;
  /** An invoice whose lines total less than this before discounts is not discounted; null: no minimum. */
  readonly minimumAmount: number | null;
  /** The day it was applied (the customer's time zone): invoices whose period starts on or after it. */
  readonly start: string;
  /** The last day (inclusive) an invoice's period may start on: repeating's last day, a once's invoice date, the day ended early; null: open-ended. */
  readonly end: string | null;
  /** When it stopped discounting (used, or ended early); null while it applies. */
  readonly endedAt: string | null;
}

/** A redeemed coupon as the customer records it; its window (start, end) is the decider's. */
export type RedeemedCustomerDiscount = Omit<CustomerDiscount, 'start' | 'end' | 'endedAt'>;

export type CustomerDiscountApplied = DomainEvent<
  'CustomerDiscountApplied',
  { readonly customerId: string; readonly discount: CustomerDiscount; readonly appliedAt: string }
>;
/** A discount stopped: ended early (DELETE …/discounts/{id}: `removed`) or a `once` discount used by a subscription invoice (`used`, `invoiceId`). */
export type CustomerDiscountEnded = DomainEvent<
  'CustomerDiscountEnded',
  {
    readonly customerId: string;
    readonly discountId: string;
    readonly reason: 'removed' | 'used';
    /** The invoice that used it (reason used); null otherwise. */
    readonly invoiceId: string | null;
    /** Its last day. */
    readonly end: string;
    readonly endedAt: string;
  }
>;
export type CustomerDiscountEvent = CustomerDiscountApplied | CustomerDiscountEnded;

/** The discounts after one of their events (the customer's evolve calls it). */
export function evolveCustomerDiscounts(discounts: readonly CustomerDiscount[], event: CustomerDiscountEvent): CustomerDiscount[] {
  if (event.type === 'CustomerDiscountApplied') return [...discounts, event.data.discount];
  const { discountId, end, endedAt } = event.data;
  return discounts.map((discount) => (discount.id === discountId ? { ...discount, end, endedAt } : discount));
}
