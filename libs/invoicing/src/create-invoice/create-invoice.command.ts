import { Command } from '@nestjs/cqrs';
import { DiscountRequest } from '@billing/coupons';
import { CommandContext, Written } from '@billing/event-store';
import { CreateInvoice, CustomerInput, InvoiceState } from '../domain';

/**
 * A draft as the caller describes it: the service chooses the id and resolves
 * the tax codes the lines name. The customer is given inline (`customer`, a
 * one-off) or as a customer record (`customerId`): exactly one of the two.
 */
export type CreateInvoiceInput = Omit<CreateInvoice, 'invoiceId' | 'taxes' | 'customer' | 'discounts'> & { readonly customer?: CustomerInput | null };

export class CreateInvoiceCommand extends Command<Written<InvoiceState>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreateInvoiceInput,
    readonly context: CommandContext,
    /** Chosen by a caller that must find the invoice again (the billing engine's deterministic id); absent: a new random id. */
    readonly invoiceId?: string,
    /** Coupons to redeem on the draft (POST /invoices), in this order. */
    readonly discounts: readonly DiscountRequest[] = [],
  ) {
    super();
  }
}
