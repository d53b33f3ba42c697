import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { activeCustomer, customerEvolver, Customer, decideEndCustomerDiscount } from '../../domain';
import { customerStream } from '../../streams';
import { EndCustomerDiscountCommand } from './end-customer-discount.command';

@CommandHandler(EndCustomerDiscountCommand)
export class EndCustomerDiscountHandler implements ICommandHandler<EndCustomerDiscountCommand, Written<Customer>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, customerId, discountId, context, expectedVersion }: EndCustomerDiscountCommand): Promise<Written<Customer>> {
    const { state, version } = await this.commands.handle(
      customerStream(environmentId, customerId),
      customerEvolver,
      (current) => decideEndCustomerDiscount({ customerId, discountId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: customerId, version, state: activeCustomer(state, customerId) };
  }
}
