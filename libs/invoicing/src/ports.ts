import { Query } from '@nestjs/cqrs';

/**
 * What the invoicing context asks of other contexts, declared here and
 * answered there (invoicing sits below subscriptions in the context map: it
 * states the question, subscriptions registers the query handler).
 */

/**
 * How many subscriptions of the customer have not ended (active, or cancelled
 * and still running to their cancelAt): a customer with any cannot be deleted.
 * Answered by the subscriptions context.
 */
export class CustomerActiveSubscriptionsQuery extends Query<number> {
  constructor(
    readonly environmentId: string,
    readonly customerId: string,
  ) {
    super();
  }
}
