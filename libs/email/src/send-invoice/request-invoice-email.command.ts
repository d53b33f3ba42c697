import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { InvoiceEmailRequests } from '../domain';

export class RequestInvoiceEmailCommand extends Command<Written<InvoiceEmailRequests>> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
    /** The body's `to` (validated by the decider); undefined: the customer record's address. */
    readonly to: unknown,
    readonly context: CommandContext,
  ) {
    super();
  }
}
