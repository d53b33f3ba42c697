import { DiscountRequest, redeemDiscounts } from '@billing/coupons';
import { CommandSession } from '@billing/event-store';
import { CommandMetadata } from '@billing/shared-kernel';
import { Customer, CustomerDiscountApplied, decideApplyCustomerDiscounts } from '../../domain';

/**
 * Redeems the discounts a customer's create or update names, in the
 * command's transaction (coupons' published redemption: each coupon's and
 * promotion code's redemption appended at the version loaded, so a limit
 * holds under any concurrency), and decides their application to `customer`
 * (the record as the same command leaves it). They are redeemed in the
 * customer's currency: an amount off needs one. A first-time-only promotion
 * code is redeemable only on POST /customers (`created`): a record just
 * created has no subscription; an existing one may have had some, which this
 * context cannot see in its transaction.
 */
export async function redeemCustomerDiscounts(
  session: CommandSession,
  environmentId: string,
  customer: Customer,
  requests: readonly DiscountRequest[],
  created: boolean,
  meta: CommandMetadata,
): Promise<CustomerDiscountApplied[]> {
  if (requests.length === 0) return [];
  const { currency } = customer;
  const redeemed = await redeemDiscounts(
    session,
    requests,
    { environmentId, redeemedBy: { type: 'customer', id: customer.id }, currency, firstTimeCustomer: created, pointer: '/discounts' },
    meta,
  );
  const discounts = redeemed.map((discount) => ({
    ...discount,
    currency: discount.amountOff !== null || discount.minimumAmount !== null ? currency : null,
  }));
  return decideApplyCustomerDiscounts({ customerId: customer.id, discounts }, customer, meta);
}
