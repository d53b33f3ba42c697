import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { Customer, customerEvolver, decideArchiveCustomer } from '../../domain';
import { CustomerActiveSubscriptionsQuery } from '../../ports';
import { customerStream } from '../../streams';
import { CustomersReadModel } from '../read-model/customers.read-model';
import { ArchiveCustomerCommand } from './archive-customer.command';

/**
 * Archives a customer that nothing runs for any more: no subscription that
 * has not ended (asked of subscriptions through CustomerActiveSubscriptionsQuery)
 * and no booked invoice with an amount still due (invoicing's read model).
 * Both are read models as of the request: a subscription created with the
 * customer at the same moment is refused afterwards (an archived customer
 * cannot be named), so nothing new starts for an archived customer.
 */
@CommandHandler(ArchiveCustomerCommand)
export class ArchiveCustomerHandler implements ICommandHandler<ArchiveCustomerCommand, Written<Customer>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly queries: QueryBus,
    private readonly customers: CustomersReadModel,
  ) {}

  async execute({ environmentId, customerId, context, expectedVersion }: ArchiveCustomerCommand): Promise<Written<Customer>> {
    const [activeSubscriptions, unsettledInvoices] = await Promise.all([
      this.queries.execute(new CustomerActiveSubscriptionsQuery(environmentId, customerId)),
      this.customers.unsettledInvoices(environmentId, customerId),
    ]);
    const { version, state } = await this.commands.handle(
      customerStream(environmentId, customerId),
      customerEvolver,
      (current) => decideArchiveCustomer({ customerId, activeSubscriptions, unsettledInvoices }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: customerId, version, state: state as Customer };
  }
}
