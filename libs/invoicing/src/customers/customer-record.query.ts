import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { isRedactedPaymentToken, isUuid } from '@billing/shared-kernel';
import { Customer, customerEvolver } from '../domain';
import { customerStream } from '../streams';
import { CustomersReadModel } from './read-model/customers.read-model';

/**
 * A customer record of the environment (null: none with that id), for other
 * contexts (a subscription created with `customerId`), which never read
 * invoicing's tables. The record carries the default payment method's token:
 * a caller keeps it out of every answer.
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
  constructor(
    private readonly customers: CustomersReadModel,
    private readonly commands: CommandPath,
  ) {}

  /**
   * From the read model; a customer it does not show is looked for in the log, which the read model may lag (a
   * create whose process died before its read models caught up): a customer that exists is never refused as unknown,
   * and an answer that refuses one (a 422, kept with its Idempotency-Key) is never given from a lagging read. A default
   * payment method the read model keeps only as its hint (a token from before tokens were sealed) is in the log too.
   */
  async execute({ environmentId, customerId }: CustomerRecordQuery): Promise<Customer | null> {
    const record = await this.customers.record(environmentId, customerId);
    if (record !== null && !isRedactedPaymentToken(record.defaultPaymentMethod?.token ?? '')) return record;
    if (!isUuid(customerId)) return null;
    const { state } = await this.commands.load(customerStream(environmentId, customerId), customerEvolver);
    return state.status === 'none' ? null : state;
  }
}
