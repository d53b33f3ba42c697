import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { InvoiceState, UpdateInvoice } from '../domain';

/** The PUT body as domain input: the tax codes its lines name are resolved by the handler. */
export type UpdateInvoiceInput = Omit<UpdateInvoice, 'invoiceId' | 'taxes'>;

export class UpdateInvoiceCommand extends Command<Written<InvoiceState>> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
    readonly input: UpdateInvoiceInput,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
