import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { invoiceEvolver, invoiceStream } from '@billing/invoicing';
import { NotFoundError } from '@billing/shared-kernel';
import { decideRequestInvoiceEmail, invoiceEmailRequestEvolver, InvoiceEmailRequests } from '../domain';
import { invoiceEmailRequestStream } from '../streams';
import { RequestInvoiceEmailCommand } from './request-invoice-email.command';

/**
 * POST /invoices/{id}/send: records the request; the outbox reactor queues its delivery (sent once the invoice's
 * document is recorded). Reads the invoice's stream (invoicing's published language) to refuse an unknown
 * invoice (404, also another environment's) or a draft (409).
 */
@CommandHandler(RequestInvoiceEmailCommand)
export class RequestInvoiceEmailHandler implements ICommandHandler<RequestInvoiceEmailCommand, Written<InvoiceEmailRequests>> {
  constructor(private readonly commands: CommandPath) {}

  execute({ environmentId, invoiceId, to, context }: RequestInvoiceEmailCommand): Promise<Written<InvoiceEmailRequests>> {
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const invoice = (await session.load(invoiceStream(environmentId, invoiceId), invoiceEvolver)).state;
      if (invoice.status === 'none') throw new NotFoundError('invoice', invoiceId);
      const stream = invoiceEmailRequestStream(environmentId, invoiceId);
      const { state } = await session.load(stream, invoiceEmailRequestEvolver);
      const events = decideRequestInvoiceEmail({ invoiceId, to, booked: invoice.status !== 'draft' }, state, context.meta);
      const version = session.append(stream, events);
      return { id: invoiceId, version, state: events.reduce(invoiceEmailRequestEvolver.evolve, state) };
    });
  }
}
