import { Module } from '@nestjs/common';
import { AddSettlementHandler } from './add-settlement/add-settlement.handler';
import { BookInvoiceHandler } from './book-invoice/book-invoice.handler';
import { CreateInvoiceHandler } from './create-invoice/create-invoice.handler';
import { CreateTaxCodeHandler } from './create-tax-code/create-tax-code.handler';
import { DuplicateInvoiceHandler } from './duplicate-invoice/duplicate-invoice.handler';
import { InvoicesController } from './http/invoices.controller';
import { TaxCodesController } from './http/tax-codes.controller';
import { PreviewInvoiceHandler } from './preview-invoice/preview-invoice.handler';
import { InvoicingReadModel } from './read-model/invoicing.read-model';
import { TaxRegisterReader } from './tax-register';
import { UpdateInvoiceHandler } from './update-invoice/update-invoice.handler';
import { UpdateTaxCodeHandler } from './update-tax-code/update-tax-code.handler';

/** The HTTP surface and command handlers of the invoicing context (its definition is invoicingContext). */
@Module({
  controllers: [InvoicesController, TaxCodesController],
  providers: [
    InvoicingReadModel,
    { provide: TaxRegisterReader, useExisting: InvoicingReadModel },
    CreateTaxCodeHandler,
    UpdateTaxCodeHandler,
    CreateInvoiceHandler,
    UpdateInvoiceHandler,
    BookInvoiceHandler,
    AddSettlementHandler,
    DuplicateInvoiceHandler,
    PreviewInvoiceHandler,
  ],
})
export class InvoicingModule {}
