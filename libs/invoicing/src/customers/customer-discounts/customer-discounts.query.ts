import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';
import { CommandPath } from '@billing/event-store';
import { CustomerDiscount, customerEvolver } from '../../domain';
import { customerStream } from '../../streams';

/**
 * A customer record's discounts (ended ones too, in the order applied) for
 * the subscription invoices of the customer: what the billing engine and the
 * upcoming invoice compose with. Read from the customer's stream — on
 * `manager` when given (the engine's step), so a billing composes with what
 * its own transaction sees. None for an unknown customer.
 */
export class CustomerDiscountsQuery extends Query<readonly CustomerDiscount[]> {
  constructor(
    readonly environmentId: string,
    readonly customerId: string,
    readonly manager?: EntityManager,
  ) {
    super();
  }
}

@QueryHandler(CustomerDiscountsQuery)
export class CustomerDiscountsHandler implements IQueryHandler<CustomerDiscountsQuery, readonly CustomerDiscount[]> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, customerId, manager }: CustomerDiscountsQuery): Promise<readonly CustomerDiscount[]> {
    const { state } = await this.commands.load(customerStream(environmentId, customerId), customerEvolver, manager);
    return state.status === 'none' ? [] : (state.discounts ?? []);
  }
}
