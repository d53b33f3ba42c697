import { Query } from '@nestjs/cqrs';
import type { CreateInvoiceInput } from '../create-invoice/create-invoice.command';
import { CustomerInput, Invoice } from '../domain';

/**
 * An invoice as creating and booking it now would make it, nothing written:
 * its lines, tax (the register's current rates, as booking applies them) and
 * totals. The subscriptions context asks it for the upcoming invoice of a
 * subscription. The id and the line ids are throwaway; the invoice has no
 * number (a draft).
 */
export class PreviewInvoiceQuery extends Query<Invoice> {
  constructor(
    readonly environmentId: string,
    /** Made out to an inline customer: the caller gives the snapshot the booked invoice will show. */
    readonly input: CreateInvoiceInput & { readonly customer: CustomerInput },
    /** The environment's now (createdAt of the throwaway draft). */
    readonly now: Date,
  ) {
    super();
  }
}
