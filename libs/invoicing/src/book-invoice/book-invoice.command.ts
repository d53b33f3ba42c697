import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { InvoiceState, InvoiceType } from '../domain';

/** A number taken for this booking from the environment's counter of `type` in the caller's unit of work (ReserveInvoiceNumbersCommand). */
export interface ReservedInvoiceNumber {
  readonly type: InvoiceType;
  readonly value: number;
}

export class BookInvoiceCommand extends Command<Written<InvoiceState>> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
    /** The invoice date to book with; absent or null: the draft's own. */
    readonly date: string | null | undefined,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
    /** Absent: the next number of the counter, taken by the booking itself. */
    readonly number?: ReservedInvoiceNumber,
    /** A client's booking (PUT /invoices/{id}/book): a negative total is refused (BookInvoice `manual`). */
    readonly manual = false,
  ) {
    super();
  }
}
