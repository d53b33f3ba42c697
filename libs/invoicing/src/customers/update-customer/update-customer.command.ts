import { Command } from '@nestjs/cqrs';
import { DiscountRequest } from '@billing/coupons';
import { CommandContext, Written } from '@billing/event-store';
import { Customer, CustomerFieldsInput } from '../../domain';

export class UpdateCustomerCommand extends Command<Written<Customer>> {
  constructor(
    readonly environmentId: string,
    readonly customerId: string,
    /** What to change: absent members are kept, null clears. */
    readonly input: CustomerFieldsInput,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
    /** Coupons to redeem on the customer, in this order (added to those it has). */
    readonly discounts: readonly DiscountRequest[] = [],
  ) {
    super();
  }
}
