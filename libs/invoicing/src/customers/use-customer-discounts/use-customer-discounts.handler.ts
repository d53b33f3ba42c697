import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { Customer, customerEvolver, decideUseCustomerDiscounts } from '../../domain';
import { customerStream } from '../../streams';
import { UseCustomerDiscountsCommand } from './use-customer-discounts.command';

/**
 * Appends the discounts' end at the customer stream's loaded version and
 * never retries: a concurrent writer of the customer (another invoice using
 * the same discount) is a conflict the caller's step answers by composing
 * its invoice again.
 */
@CommandHandler(UseCustomerDiscountsCommand)
export class UseCustomerDiscountsHandler implements ICommandHandler<UseCustomerDiscountsCommand, Written<Customer>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, customerId, invoiceId, date, discountIds, context }: UseCustomerDiscountsCommand): Promise<Written<Customer>> {
    const { state, version } = await this.commands.handle(
      customerStream(environmentId, customerId),
      customerEvolver,
      (current) => decideUseCustomerDiscounts({ customerId, invoiceId, date, discountIds }, current, context.meta),
      context,
      { conflicts: 'reject' },
    );
    return { id: customerId, version, state: state as Customer };
  }
}
