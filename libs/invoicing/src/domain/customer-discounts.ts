import { addDays, addMonths, CommandMetadata, ConflictError, DomainEvent, localDateOf, NotFoundError, ValidationError } from '@billing/shared-kernel';
import { activeCustomer, CustomerState } from './customer';

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

/**
 * Applies redeemed coupons to an active customer, in the order given, from
 * today in the customer's time zone. A coupon already running on the customer
 * (422 at /discounts/<i>) or more than MAX_CUSTOMER_DISCOUNTS running at once
 * (422 at /discounts) is refused; the caller's transaction then redeems nothing.
 */
export function decideApplyCustomerDiscounts(
  command: { customerId: string; discounts: readonly RedeemedCustomerDiscount[] },
  state: CustomerState,
  meta: CommandMetadata,
): CustomerDiscountApplied[] {
  const customer = activeCustomer(state, command.customerId);
  if (command.discounts.length === 0) return [];
  const running = (customer.discounts ?? []).filter((discount) => discount.endedAt === null);
  command.discounts.forEach((terms, index) => {
    if (running.some((discount) => discount.couponId === terms.couponId)) {
      throw ValidationError.at(`/discounts/${index}`, `the customer has coupon ${terms.couponId} running already`);
    }
  });
  if (running.length + command.discounts.length > MAX_CUSTOMER_DISCOUNTS) {
    throw ValidationError.at('/discounts', `a customer has at most ${MAX_CUSTOMER_DISCOUNTS} discounts running; it has ${running.length}`);
  }
  const start = localDateOf(meta.now, customer.timeZone);
  return command.discounts.map((terms) => ({
    type: 'CustomerDiscountApplied',
    schemaVersion: 1,
    data: {
      customerId: customer.id,
      discount: { ...terms, start, end: terms.duration === 'repeating' ? addDays(addMonths(start, terms.durationInMonths!), -1) : null, endedAt: null },
      appliedAt: meta.now.toISOString(),
    },
  }));
}

/** DELETE /customers/{id}/discounts/{discountId}: no invoice made from now on gets it; its end is today (the customer's zone). */
export function decideEndCustomerDiscount(
  command: { customerId: string; discountId: string },
  state: CustomerState,
  meta: CommandMetadata,
): CustomerDiscountEnded[] {
  const customer = activeCustomer(state, command.customerId);
  const discount = (customer.discounts ?? []).find((candidate) => candidate.id === command.discountId);
  if (discount === undefined) throw new NotFoundError('discount', command.discountId);
  if (discount.endedAt !== null) throw new ConflictError('discount-ended', `discount ${discount.id} has ended already (${discount.end})`);
  const today = localDateOf(meta.now, customer.timeZone);
  return [
    {
      type: 'CustomerDiscountEnded',
      schemaVersion: 1,
      data: {
        customerId: customer.id,
        discountId: discount.id,
        reason: 'removed',
        invoiceId: null,
        end: discount.end !== null && discount.end < today ? discount.end : today,
        endedAt: meta.now.toISOString(),
      },
    },
  ];
}

/**
 * A subscription invoice made with the customer's `once` discounts uses them
 * up, in the invoice's transaction. One that has ended meanwhile (another
 * invoice of the customer used it, or it was ended early) is a conflict
 * (`customer-discount-ended`): the invoice was composed with a discount the
 * customer no longer has, so the billing engine composes it again. An archived
 * customer's invoices still use them (its last subscription invoices).
 */
export function decideUseCustomerDiscounts(
  command: { customerId: string; invoiceId: string; date: string; discountIds: readonly string[] },
  state: CustomerState,
  meta: CommandMetadata,
): CustomerDiscountEnded[] {
  if (state.status === 'none') throw new NotFoundError('Customer', command.customerId);
  return command.discountIds.map((discountId) => {
    const discount = (state.discounts ?? []).find((candidate) => candidate.id === discountId);
    if (discount === undefined || discount.endedAt !== null || discount.duration !== 'once') {
      throw new ConflictError('customer-discount-ended', `discount ${discountId} of customer ${state.handle} is no longer open to be used once`);
    }
    return {
      type: 'CustomerDiscountEnded',
      schemaVersion: 1,
      data: { customerId: state.id, discountId, reason: 'used', invoiceId: command.invoiceId, end: command.date, endedAt: meta.now.toISOString() },
    };
  });
}
