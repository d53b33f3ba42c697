import { CommandContext } from '@billing/event-store';

export class BookInvoiceCommand {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
    /** The invoice date to book with; absent or null: the draft's own. */
    readonly date: string | null | undefined,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {}
}
