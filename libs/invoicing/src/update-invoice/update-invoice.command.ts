import { Command } from '@nestjs/cqrs';
import { DiscountRequest } from '@billing/coupons';
import { CommandContext, Written } from '@billing/event-store';
import { InvoiceState, UpdateInvoice } from '../domain';

/** The PUT body as domain input: the tax codes its lines name are resolved by the handler. */
export type UpdateInvoiceInput = Omit<UpdateInvoice, 'invoiceId' | 'taxes' | 'discounts'>;

export class UpdateInvoiceCommand extends Command<Written<InvoiceState>> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
    readonly input: UpdateInvoiceInput,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
    /** The draft's coupons from now on (those it has are kept, new ones redeemed); absent: it keeps its own. */
    readonly discounts?: readonly DiscountRequest[],
  ) {
    super();
  }
}
