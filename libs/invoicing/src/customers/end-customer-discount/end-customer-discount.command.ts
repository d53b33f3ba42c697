import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Customer } from '../../domain';

/** DELETE /customers/{customerId}/discounts/{discountId}: the discount ends today. */
export class EndCustomerDiscountCommand extends Command<Written<Customer>> {
  constructor(
    readonly environmentId: string,
    readonly customerId: string,
    readonly discountId: string,
    readonly context: CommandContext,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
