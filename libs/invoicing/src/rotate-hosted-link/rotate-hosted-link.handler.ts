import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideRotateHostedLink, invoiceEvolver, InvoiceState } from '../domain';
import { invoiceStream } from '../streams';
import { RotateHostedLinkCommand } from './rotate-hosted-link.command';

/** Replaces an invoice's hosted page link: the next link version, one event on the invoice's stream. */
@CommandHandler(RotateHostedLinkCommand)
export class RotateHostedLinkHandler implements ICommandHandler<RotateHostedLinkCommand, Written<InvoiceState>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, invoiceId, context, expectedVersion }: RotateHostedLinkCommand): Promise<Written<InvoiceState>> {
    // Retried on a fresh load: a settlement written meanwhile does not change what rotating means.
    const { version, state } = await this.commands.handle(
      invoiceStream(environmentId, invoiceId),
      invoiceEvolver,
      (current) => decideRotateHostedLink({ invoiceId }, current, context.meta),
      context,
      { expectedVersion, conflicts: { retries: 2 } },
    );
    return { id: invoiceId, version, state };
  }
}
