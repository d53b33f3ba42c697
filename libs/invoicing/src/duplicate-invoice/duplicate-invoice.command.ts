import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { InvoiceState } from '../domain';

export class DuplicateInvoiceCommand extends Command<Written<InvoiceState>> {
  constructor(
    readonly environmentId: string,
    /** the source invoice */
    readonly invoiceId: string,
    /** true: a credit note for the (booked) source */
    readonly reverse: boolean,
    readonly context: CommandContext,
    /** The source's version the client bases this on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
