import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { InvoiceState } from '../domain';

export class RotateHostedLinkCommand extends Command<Written<InvoiceState>> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
