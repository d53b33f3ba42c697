import { Query } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';

/**
 * What the subscriptions context asks of other contexts, declared here and
 * answered there (the context map runs subscriptions < payments: subscriptions
 * cannot import the payments context, so it states the question and payments
 * registers the query handler that answers it).
 */

/**
 * The environment's payment terms in days (an invoice is due that many days
 * after its date), read in the billing step's own transaction (`manager`) so
 * the invoice is dated by the terms in force when it is booked. Answered by
 * the payments context, which owns GET/PUT /paymentsettings.
 */
export class PaymentTermsQuery extends Query<number> {
  constructor(
    readonly environmentId: string,
    readonly manager: EntityManager,
  ) {
    super();
  }
}
