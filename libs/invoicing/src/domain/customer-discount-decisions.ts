import { addDays, addMonths, CommandMetadata, ConflictError, localDateOf, NotFoundError, ValidationError } from '@billing/shared-kernel';
import { activeCustomer, CustomerState } from './customer';
import { CustomerDiscountApplied, CustomerDiscountEnded, MAX_CUSTOMER_DISCOUNTS, RedeemedCustomerDiscount } from './customer-discounts';

/** The deciders of a customer's discounts (their state and fold: customer-discounts.ts, folded by the Customer aggregate). */

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
