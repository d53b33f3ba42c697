import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Customer } from '../domain';
import { CustomersReadModel } from './read-model/customers.read-model';

/**
 * A customer record of the environment as the read model has it (null: none
 * with that id), for other contexts (a subscription created with
 * `customerId`), which never read invoicing's tables. The record carries the
 * default payment method's token: a caller keeps it out of every answer.
 */
export class CustomerRecordQuery extends Query<Customer | null> {
  constructor(
    readonly environmentId: string,
    readonly customerId: string,
  ) {
    super();
  }
}

@QueryHandler(CustomerRecordQuery)
export class CustomerRecordHandler implements IQueryHandler<CustomerRecordQuery, Customer | null> {
  constructor(private readonly customers: CustomersReadModel) {}

  execute({ environmentId, customerId }: CustomerRecordQuery): Promise<Customer | null> {
    return this.customers.record(environmentId, customerId);
  }
}
