import { Command } from '@nestjs/cqrs';
import { DiscountRequest } from '@billing/coupons';
import { CommandContext, Written } from '@billing/event-store';
import { PaymentMethod, Subscription, SubscriptionCustomer } from '../domain';

/** An item as the caller asks for it: the price is looked up by the handler. */
export interface RequestedSubscriptionItem {
  readonly priceId: string;
  readonly quantity: number | string;
  readonly taxCode: string | null;
}

/**
 * POST /subscriptions as domain input; the handle, when absent, is the next
 * SUB-000001 of the environment. The customer is inline (`customer`) or a
 * customer record (`customerId`), exactly one of the two; with a record, an
 * absent time zone and payment method are the customer's.
 */
export interface CreateSubscriptionInput {
  readonly handle: string | null;
  readonly customer: SubscriptionCustomer | null;
  readonly customerId: string | null;
  readonly currency: string;
  readonly term: { readonly start: string; readonly end: string | null };
  readonly autoRenewal: boolean;
  readonly timeZone: string | null;
  readonly items: readonly RequestedSubscriptionItem[];
  readonly paymentMethod: PaymentMethod | null;
  /** A free trial to this day (exclusive: the first day billed), or of trialDays days from term.start; not both. */
  readonly trialEnd: string | null;
  readonly trialDays: number | null;
  /** Coupons to redeem on it, in the order they apply. */
  readonly discounts: readonly DiscountRequest[];
}

export class CreateSubscriptionCommand extends Command<Written<Subscription>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreateSubscriptionInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
