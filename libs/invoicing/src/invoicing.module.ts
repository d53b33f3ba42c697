import { Module } from '@nestjs/common';
import { AdjustCustomerBalanceHandler } from './customers/adjust-customer-balance/adjust-customer-balance.handler';
import { ArchiveCustomerHandler } from './customers/archive-customer/archive-customer.handler';
import { CreateCustomerHandler } from './customers/create-customer/create-customer.handler';
import { CustomerRecordHandler } from './customers/customer-record.query';
import { CustomersController } from './customers/http/customers.controller';
import { CustomersReadModel } from './customers/read-model/customers.read-model';
import { UpdateCustomerHandler } from './customers/update-customer/update-customer.handler';
import { EndCustomerDiscountHandler } from './customers/end-customer-discount/end-customer-discount.handler';
import { CustomerDiscountsHandler } from './customers/customer-discounts/customer-discounts.query';
import { UseCustomerDiscountsHandler } from './customers/use-customer-discounts/use-customer-discounts.handler';
import { AddSettlementHandler } from './add-settlement/add-settlement.handler';
import { BookInvoiceHandler } from './book-invoice/book-invoice.handler';
import { CreateInvoiceHandler } from './create-invoice/create-invoice.handler';
import { CreateTaxCodeHandler } from './create-tax-code/create-tax-code.handler';
import { DuplicateInvoiceHandler } from './duplicate-invoice/duplicate-invoice.handler';
import { MarkInvoiceUncollectibleHandler } from './mark-invoice-uncollectible/mark-invoice-uncollectible.handler';
import { IssueCreditNoteHandler } from './issue-credit-note/issue-credit-note.handler';
import { InvoicesController } from './http/invoices.controller';
import { TaxCodesController } from './http/tax-codes.controller';
import { PreviewInvoiceHandler } from './preview-invoice/preview-invoice.handler';
import { InvoicingReadModel } from './read-model/invoicing.read-model';
import { TaxRegisterReader } from './tax-register';
import { UpdateInvoiceHandler } from './update-invoice/update-invoice.handler';
import { UpdateTaxCodeHandler } from './update-tax-code/update-tax-code.handler';
import { VoidInvoiceHandler } from './void-invoice/void-invoice.handler';
import { HostedLinks } from './hosted-link/hosted-links';
import { InvoiceDetails } from './hosted-link/invoice-details';
import { RotateHostedLinkHandler } from './rotate-hosted-link/rotate-hosted-link.handler';
import { ReserveInvoiceNumbersHandler } from './reserve-invoice-numbers/reserve-invoice-numbers.handler';

/** The HTTP surface and command handlers of the invoicing context (its definition is invoicingContext). */
@Module({
  controllers: [InvoicesController, TaxCodesController, CustomersController],
  providers: [
    InvoicingReadModel,
    { provide: TaxRegisterReader, useExisting: InvoicingReadModel },
    CreateTaxCodeHandler,
    UpdateTaxCodeHandler,
    CreateInvoiceHandler,
    UpdateInvoiceHandler,
    BookInvoiceHandler,
    ReserveInvoiceNumbersHandler,
    AddSettlementHandler,
    DuplicateInvoiceHandler,
    VoidInvoiceHandler,
    MarkInvoiceUncollectibleHandler,
    RotateHostedLinkHandler,
    HostedLinks,
    InvoiceDetails,
    CustomersReadModel,
    CreateCustomerHandler,
    UpdateCustomerHandler,
    ArchiveCustomerHandler,
    AdjustCustomerBalanceHandler,
    EndCustomerDiscountHandler,
    CustomerDiscountsHandler,
    UseCustomerDiscountsHandler,
    CustomerRecordHandler,
    IssueCreditNoteHandler,
    PreviewInvoiceHandler,
  ],
})
export class InvoicingModule {}
