import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { foldEvents } from '@billing/shared-kernel';
import { decideVoidInvoice, invoiceEvolver, InvoiceState } from '../domain';
import { InvoicePaymentTakenQuery, invoicePaymentLock } from '../ports';
import { invoiceStream } from '../streams';
import { VoidInvoiceCommand } from './void-invoice.command';

/**
 * Voids a booked, unpaid invoice; payments reacts to InvoiceVoided and stops
 * its collection. Under the invoice's payment lock, so a payment being
 * recorded for it at the same moment is either seen here (and the void
 * refused) or sees the void (and is refused).
 */
@CommandHandler(VoidInvoiceCommand)
export class VoidInvoiceHandler implements ICommandHandler<VoidInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly queries: QueryBus,
  ) {}

  async execute({ environmentId, invoiceId, context, expectedVersion }: VoidInvoiceCommand): Promise<Written<InvoiceState>> {
    const stream = invoiceStream(environmentId, invoiceId);
    return this.commands.run(context, 'reject', async (session) => {
      const lock = invoicePaymentLock(environmentId, invoiceId);
      await session.query(lock.sql, lock.parameters);
      const { state, version } = await session.load(stream, invoiceEvolver, expectedVersion);
      const paymentTaken = state.status === 'booked' && (await this.queries.execute(new InvoicePaymentTakenQuery(environmentId, invoiceId, session.tx)));
      const events = decideVoidInvoice({ invoiceId, paymentTaken }, state, context.meta);
      return {
        id: invoiceId,
        version: events.length === 0 ? version : session.append(stream, events),
        state: foldEvents(invoiceEvolver, events, state),
      };
    });
  }
}
