import { randomUUID } from 'node:crypto';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { foldEvents } from '@billing/shared-kernel';
import { decideCreateInvoice, Invoice, invoiceEvolver, taxCodesNamedBy, withCurrentTax } from '../domain';
import { TaxRegisterReader } from '../tax-register';
import { PreviewInvoiceQuery } from './preview-invoice.query';

/**
 * The create decider on an empty stream, then the current rates as booking
 * applies them (decideBookInvoice's withCurrentTax): the same functions the
 * create and book commands run, with the same register, so the preview's
 * tax and totals are the booked invoice's.
 */
@QueryHandler(PreviewInvoiceQuery)
export class PreviewInvoiceHandler implements IQueryHandler<PreviewInvoiceQuery, Invoice> {
  constructor(private readonly taxRegister: TaxRegisterReader) {}

  async execute({ environmentId, input, now }: PreviewInvoiceQuery): Promise<Invoice> {
    const taxes = await this.taxRegister.read(environmentId, taxCodesNamedBy(input.items));
    const meta = { now, newId: randomUUID };
    const created = decideCreateInvoice({ ...input, invoiceId: randomUUID(), taxes }, invoiceEvolver.initialState(), meta);
    return withCurrentTax(foldEvents(invoiceEvolver, created) as Invoice, taxes);
  }
}
