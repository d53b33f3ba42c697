import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { InvoiceDirectRefundsQuery, invoiceEvolver, invoiceStream } from '@billing/invoicing';
import { directRefundsNotSettled, invoicePaymentsEvolver, Payment, paymentEvolver } from '../domain';
import { invoicePaymentsStream, paymentStream } from '../streams';

/**
 * Answers invoicing's port before a credit note is issued: what direct
 * refunds of the invoice's payments take that its settlements do not show
 * yet, read from the log in the issuing command's transaction (under the
 * invoice's payment lock), the same count a direct refund decides on.
 */
@QueryHandler(InvoiceDirectRefundsQuery)
export class InvoiceDirectRefundsHandler implements IQueryHandler<InvoiceDirectRefundsQuery, number> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, invoiceId, manager }: InvoiceDirectRefundsQuery): Promise<number> {
    const invoice = (await this.commands.load(invoiceStream(environmentId, invoiceId), invoiceEvolver, manager)).state;
    if (invoice.status === 'none') return 0;
    const { paymentIds } = (await this.commands.load(invoicePaymentsStream(environmentId, invoiceId), invoicePaymentsEvolver, manager)).state;
    const payments: Payment[] = [];
    for (const paymentId of paymentIds) {
      const payment = (await this.commands.load(paymentStream(environmentId, paymentId), paymentEvolver, manager)).state;
      if (payment.status !== 'none') payments.push(payment);
    }
    return directRefundsNotSettled(
      payments,
      invoice.settlements.map((settlement) => settlement.reference),
    );
  }
}
