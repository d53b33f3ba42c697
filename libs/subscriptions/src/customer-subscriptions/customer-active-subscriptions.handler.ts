import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CustomerActiveSubscriptionsQuery } from '@billing/invoicing';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';

/** Answers invoicing's port: a customer with a subscription that has not ended cannot be deleted. */
@QueryHandler(CustomerActiveSubscriptionsQuery)
export class CustomerActiveSubscriptionsHandler implements IQueryHandler<CustomerActiveSubscriptionsQuery, number> {
  constructor(private readonly readModel: SubscriptionsReadModel) {}

  execute({ environmentId, customerId }: CustomerActiveSubscriptionsQuery): Promise<number> {
    return this.readModel.runningSubscriptionsOf(environmentId, customerId);
  }
}
