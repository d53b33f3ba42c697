import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { InvoiceType } from '../domain';
import { ReservedInvoiceNumber } from '../book-invoice/book-invoice.command';

/**
 * The next numbers of the environment's counter for `type`, one per invoice in the order given, for a caller that
 * books a batch of invoices in its unit of work (the billing engine) and passes each its number (BookInvoiceCommand
 * `number`): taken with one statement, so the counter row is held only from there to the unit's commit. Runs only
 * inside a unit of work, which books every number or rolls back with them.
 */
export class ReserveInvoiceNumbersCommand extends Command<ReadonlyMap<string, ReservedInvoiceNumber>> {
  constructor(
    readonly environmentId: string,
    readonly type: InvoiceType,
    readonly invoiceIds: readonly string[],
    readonly context: CommandContext,
  ) {
    super();
  }
}
