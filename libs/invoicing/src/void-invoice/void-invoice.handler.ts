import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { CommandPath, CommandSession, Written } from '@billing/event-store';
import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import {
  creditAppliedTo,
  customerEvolver,
  decideReturnCustomerCredit,
  decideVoidInvoice,
  Invoice,
  InvoiceEvent,
  invoiceEvolver,
  InvoiceState,
} from '../domain';
import { InvoicePaymentTakenQuery, invoicePaymentLock } from '../ports';
import { customerStream, invoiceStream } from '../streams';
import { VoidInvoiceCommand } from './void-invoice.command';

/**
 * Voids a booked, unpaid invoice; payments reacts to InvoiceVoided and stops
 * its collection. Under the invoice's payment lock, so a payment being
 * recorded for it at the same moment is either seen here (and the void
 * refused) or sees the void (and is refused). Credit the invoice took from
 * its customer's balance is returned in the same transaction (a
 * `void_returned` entry on the customer's stream).
 */
@CommandHandler(VoidInvoiceCommand)
export class VoidInvoiceHandler implements ICommandHandler<VoidInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly queries: QueryBus,
  ) {}

  async execute({ environmentId, invoiceId, context, expectedVersion }: VoidInvoiceCommand): Promise<Written<InvoiceState>> {
    const { meta } = context;
    const stream = invoiceStream(environmentId, invoiceId);
    // Another writer of the customer's stream (a booking taking credit, a balance entry) is retried on a fresh load.
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const lock = invoicePaymentLock(environmentId, invoiceId);
      await session.query(lock.sql, lock.parameters);
      const { state, version } = await session.load(stream, invoiceEvolver, expectedVersion);
      const paymentTaken = state.status === 'booked' && (await this.queries.execute(new InvoicePaymentTakenQuery(environmentId, invoiceId, session.tx)));
      const voided = decideVoidInvoice({ invoiceId, paymentTaken }, state, meta);
      if (voided.length === 0) return { id: invoiceId, version, state };
      // The credit the invoice took from its customer's balance goes back to it, in the same transaction.
      const returned = await this.returnCredit(session, environmentId, state as Invoice, meta);
      const events = [...returned, ...voided];
      const after = foldEvents(invoiceEvolver, events, state);
      return { id: invoiceId, version: session.append(stream, events, after), state: after };
    });
  }

  private async returnCredit(session: CommandSession, environmentId: string, invoice: Invoice, meta: CommandMetadata): Promise<InvoiceEvent[]> {
    if (creditAppliedTo(invoice) === 0 || invoice.customerId == null) return [];
    const customer = customerStream(environmentId, invoice.customerId);
    const { state } = await session.load(customer, customerEvolver);
    const { invoiceEvents, customerEvents } = decideReturnCustomerCredit({ entryId: meta.newId() }, invoice, state, meta);
    session.append(customer, customerEvents);
    return invoiceEvents;
  }
}
