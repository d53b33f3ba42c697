import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { InvoiceState } from '../domain';
import { Written } from '../written';

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
