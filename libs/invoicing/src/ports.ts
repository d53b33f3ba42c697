import { Query } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';

/**
 * What the invoicing context asks of other contexts, declared here and
 * answered there (invoicing sits below subscriptions and payments in the
 * context map: it states the question, they register the query handlers).
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

/**
 * Whether the template group is one of the environment's (a customer's
 * `invoiceSettings.templateGroupId` must name one). Answered by the templates
 * context, which owns template groups.
 */
export class TemplateGroupExistsQuery extends Query<boolean> {
  constructor(
    readonly environmentId: string,
    readonly templateGroupId: string,
  ) {
    super();
  }
}

/**
 * Whether money was taken, or may be being taken, for the invoice: a payment
 * of it still waiting for its outcome, or one that succeeded (its settlement
 * may not be on the invoice yet). Read from the log in the asking command's
 * transaction (`manager`), under the invoice's payment lock. Answered by the
 * payments context.
 */
export class InvoicePaymentTakenQuery extends Query<boolean> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
    readonly manager: EntityManager,
  ) {
    super();
  }
}

/**
 * What refunds of the invoice's payments made directly (not for a credit
 * note), reserved or made, take that the invoice's settlements do not show
 * yet: a credit note's refundAmount must leave it to them. Read from the log
 * in the asking command's transaction (`manager`), under the invoice's
 * payment lock, which a direct refund takes too. Answered by the payments
 * context.
 */
export class InvoiceDirectRefundsQuery extends Query<number> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
    readonly manager: EntityManager,
  ) {
    super();
  }
}

/**
 * The transaction-scoped advisory lock that orders a payment being recorded
 * for an invoice against the invoice being voided: whoever takes it second
 * sees what the first committed (a void invoice is never charged, a void
 * never passes a payment under way; a credit note's refund and a direct
 * refund never promise the same money). Every side locks with this one key.
 */
export function invoicePaymentLock(environmentId: string, invoiceId: string): { readonly sql: string; readonly parameters: readonly unknown[] } {
  return { sql: `select pg_advisory_xact_lock(hashtextextended($1, 0))`, parameters: [`invoice-payment\n${environmentId}\n${invoiceId}`] };
}
