import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideMarkInvoiceUncollectible, invoiceEvolver, InvoiceState } from '../domain';
import { invoiceStream } from '../streams';
import { MarkInvoiceUncollectibleCommand } from './mark-invoice-uncollectible.command';

/**
 * Marks an invoice uncollectible: asked over the API, or by payments when a
 * collection gives up and the environment's dunning settings say so. Payments
 * reacts to InvoiceMarkedUncollectible and stops its collection.
 */
@CommandHandler(MarkInvoiceUncollectibleCommand)
export class MarkInvoiceUncollectibleHandler implements ICommandHandler<MarkInvoiceUncollectibleCommand, Written<InvoiceState>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, invoiceId, context, expectedVersion }: MarkInvoiceUncollectibleCommand): Promise<Written<InvoiceState>> {
    const { version, state } = await this.commands.handle(
      invoiceStream(environmentId, invoiceId),
      invoiceEvolver,
      (current) => decideMarkInvoiceUncollectible({ invoiceId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: invoiceId, version, state };
  }
}
