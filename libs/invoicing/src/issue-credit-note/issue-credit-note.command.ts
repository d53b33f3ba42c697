import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { InvoiceState, IssueCreditNote } from '../domain';

/** The request of POST /invoices/{id}/credit-notes, unchecked (the decider checks it against the invoice). */
export type IssueCreditNoteInput = Omit<IssueCreditNote, 'creditNoteId' | 'handle'>;

export class IssueCreditNoteCommand extends Command<Written<InvoiceState>> {
  constructor(
    readonly environmentId: string,
    readonly input: IssueCreditNoteInput,
    readonly context: CommandContext,
    /** The invoice's version the client bases this on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
