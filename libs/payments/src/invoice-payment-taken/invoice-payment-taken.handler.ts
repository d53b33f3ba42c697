import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { InvoicePaymentTakenQuery } from '@billing/invoicing';
import { invoicePaymentsEvolver, paymentEvolver } from '../domain';
import { invoicePaymentsStream, paymentStream } from '../streams';

/**
 * Answers invoicing's port before a void: whether a payment of the invoice
 * is waiting for its outcome or has succeeded, read from the log (not the
 * read model, which may not show an outcome committed a moment ago) in the
 * voiding command's transaction.
 */
@QueryHandler(InvoicePaymentTakenQuery)
export class InvoicePaymentTakenHandler implements IQueryHandler<InvoicePaymentTakenQuery, boolean> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, invoiceId, manager }: InvoicePaymentTakenQuery): Promise<boolean> {
    const { state } = await this.commands.load(invoicePaymentsStream(environmentId, invoiceId), invoicePaymentsEvolver, manager);
    if (state.pendingPaymentId !== null) return true;
    for (const paymentId of state.paymentIds) {
      const payment = (await this.commands.load(paymentStream(environmentId, paymentId), paymentEvolver, manager)).state;
      if (payment.status !== 'failed' && payment.status !== 'none') return true; // under way (pending, requires_action), or money moved (succeeded, disputed)
    }
    return false;
  }
}
