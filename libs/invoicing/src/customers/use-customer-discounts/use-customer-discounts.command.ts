import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Customer } from '../../domain';

/**
 * A subscription invoice made with the customer's `once` discounts uses them
 * up: run by the billing engine in the step that creates the invoice (its
 * unit of work), so the invoice and the discount's end commit together.
 */
export class UseCustomerDiscountsCommand extends Command<Written<Customer>> {
  constructor(
    readonly environmentId: string,
    readonly customerId: string,
    readonly invoiceId: string,
    /** The invoice's date: the discounts' end. */
    readonly date: string,
    readonly discountIds: readonly string[],
    readonly context: CommandContext,
  ) {
    super();
  }
}
