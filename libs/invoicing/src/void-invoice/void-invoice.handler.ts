import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideVoidInvoice, invoiceEvolver, InvoiceState } from '../domain';
import { invoiceStream } from '../streams';
import { VoidInvoiceCommand } from './void-invoice.command';

/** Voids a booked, unpaid invoice; payments reacts to InvoiceVoided and stops its collection. */
@CommandHandler(VoidInvoiceCommand)
export class VoidInvoiceHandler implements ICommandHandler<VoidInvoiceCommand, Written<InvoiceState>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, invoiceId, context, expectedVersion }: VoidInvoiceCommand): Promise<Written<InvoiceState>> {
    const { version, state } = await this.commands.handle(
      invoiceStream(environmentId, invoiceId),
      invoiceEvolver,
      (current) => decideVoidInvoice({ invoiceId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: invoiceId, version, state };
  }
}
