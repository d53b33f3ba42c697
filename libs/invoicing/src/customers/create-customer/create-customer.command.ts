import { Command } from '@nestjs/cqrs';
import { DiscountRequest } from '@billing/coupons';
import { CommandContext, Written } from '@billing/event-store';
import { Customer, CustomerFieldsInput } from '../../domain';

export class CreateCustomerCommand extends Command<Written<Customer>> {
  constructor(
    readonly environmentId: string,
    readonly input: CustomerFieldsInput,
    readonly context: CommandContext,
    /** Coupons to redeem on the new customer, in this order. */
    readonly discounts: readonly DiscountRequest[] = [],
  ) {
    super();
  }
}
