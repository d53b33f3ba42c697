import { Module } from '@nestjs/common';
import { AddSettlementHandler } from './add-settlement/add-settlement.handler';
import { BookInvoiceHandler } from './book-invoice/book-invoice.handler';
import { CreateInvoiceHandler } from './create-invoice/create-invoice.handler';
import { CreateTaxCodeHandler } from './create-tax-code/create-tax-code.handler';
import { DuplicateInvoiceHandler } from './duplicate-invoice/duplicate-invoice.handler';
import { InvoicesController } from './http/invoices.controller';
import { registerInvoicingProblemTypes } from './http/problem-types';
import { TaxCodesController } from './http/tax-codes.controller';
import { InvoicingProjection } from './infrastructure/invoicing.projection';
import { InvoicingReadModel } from './infrastructure/invoicing.read-model';
import { UpdateInvoiceHandler } from './update-invoice/update-invoice.handler';
import { UpdateTaxCodeHandler } from './update-tax-code/update-tax-code.handler';

registerInvoicingProblemTypes();

/**
 * The invoicing bounded context: the tax-code register and invoices (drafts,
 * booking with gapless numbers, settlements, duplicates and credit notes),
 * event-sourced, with the `invoices` and `tax_codes` read models.
 */
@Module({
  controllers: [InvoicesController, TaxCodesController],
  providers: [
    InvoicingReadModel,
    InvoicingProjection,
    CreateTaxCodeHandler,
    UpdateTaxCodeHandler,
    CreateInvoiceHandler,
    UpdateInvoiceHandler,
    BookInvoiceHandler,
    AddSettlementHandler,
    DuplicateInvoiceHandler,
  ],
})
export class InvoicingModule {}
