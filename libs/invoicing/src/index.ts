/**
 * The published surface of the invoicing context: the one file other packages import, as
 * `@billing/invoicing` (which ones may: context-map.js). It holds invoices and tax codes with their
 * events and deciders (domain), their streams and views, the commands the billing engine runs, the
 * settlement decider payments runs, and the context's definition.
 */
export * from './domain';
export { invoicingContext } from './invoicing.context';
export { invoicingMigrations } from './migrations';
export { INVOICE_STREAM, TAX_CODE_STREAM, invoiceStream, taxCodeStream, taxCodeStreamId } from './streams';
export { toInvoiceView } from './read-model/invoice-view';
export type { InvoiceView, InvoiceLineView, InvoiceSummaryView } from './read-model/invoice-view';
export { toTaxCodeView } from './read-model/tax-code-view';
export type { TaxCodeView } from './read-model/tax-code-view';
export { INVOICING_PROJECTION } from './read-model/invoicing.projection';
// What other contexts may run (the billing engine creates and books invoices) and the customer shape they share.
export { CreateInvoiceCommand } from './create-invoice/create-invoice.command';
export type { CreateInvoiceInput } from './create-invoice/create-invoice.command';
export { BookInvoiceCommand } from './book-invoice/book-invoice.command';
export { UpdateInvoiceCommand } from './update-invoice/update-invoice.command';
export { CustomerInputDto } from './create-invoice/create-invoice.dto';
// The upcoming invoice of a subscription: an invoice as create and book would make it, nothing written, and its documented line shape.
export { PreviewInvoiceQuery } from './preview-invoice/preview-invoice.query';
export { InvoiceCustomerDto, InvoiceLineDto } from './http/invoice-detail.dto';
