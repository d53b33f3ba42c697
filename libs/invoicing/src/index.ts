/**
 * The published surface of the invoicing context: the one file other packages import, as
 * `@billing/invoicing` (which ones may: context-map.js). It holds invoices and tax codes with their
 * events and deciders (domain), their streams and views, the commands the billing engine runs, the
 * settlement decider payments runs, and the context's definition.
 */
export * from './domain';
export { invoicingContext } from './invoicing.context';
export { invoicingMigrations } from './migrations';
export {
  CUSTOMER_HANDLE_STREAM,
  CUSTOMER_STREAM,
  INVOICE_STREAM,
  TAX_CODE_STREAM,
  customerHandleStream,
  customerStream,
  invoiceStream,
  taxCodeStream,
  taxCodeStreamId,
} from './streams';
export { toInvoiceView } from './read-model/invoice-view';
export type { InvoiceView, InvoiceLineView, InvoiceSummaryView } from './read-model/invoice-view';
export { toTaxCodeView } from './read-model/tax-code-view';
export type { TaxCodeView } from './read-model/tax-code-view';
export { INVOICING_PROJECTION } from './read-model/invoicing.projection';
// What other contexts may run (the billing engine creates and books invoices) and the customer shape they share.
export { CreateInvoiceCommand } from './create-invoice/create-invoice.command';
export type { CreateInvoiceInput } from './create-invoice/create-invoice.command';
export { BookInvoiceCommand } from './book-invoice/book-invoice.command';
export type { ReservedInvoiceNumber } from './book-invoice/book-invoice.command';
// The billing engine books a batch of invoices with numbers taken together, once per batch, in its unit of work.
export { ReserveInvoiceNumbersCommand } from './reserve-invoice-numbers/reserve-invoice-numbers.command';
export { UpdateInvoiceCommand } from './update-invoice/update-invoice.command';
// Payments marks an invoice uncollectible when a collection gives up and the dunning settings say so.
export { MarkInvoiceUncollectibleCommand } from './mark-invoice-uncollectible/mark-invoice-uncollectible.command';
// Voiding asks payments whether money was taken (a port payments answers) under a lock both sides take.
export { InvoiceDirectRefundsQuery, InvoicePaymentTakenQuery, invoicePaymentLock } from './ports';
export { CustomerInputDto } from './create-invoice/create-invoice.dto';
// Customers: the record other contexts read (a subscription created with customerId) and the question invoicing asks of subscriptions.
export { CustomerRecordQuery } from './customers/customer-record.query';
// A subscription's always_invoice change puts a net proration credit on its customer's balance.
export { AdjustCustomerBalanceCommand } from './customers/adjust-customer-balance/adjust-customer-balance.command';
export { CustomerActiveSubscriptionsQuery, TemplateGroupExistsQuery } from './ports';
// A customer's discounts on its subscription invoices: the billing engine and the upcoming invoice read them, the engine uses up the once ones.
export { CustomerDiscountsQuery } from './customers/customer-discounts/customer-discounts.query';
export { UseCustomerDiscountsCommand } from './customers/use-customer-discounts/use-customer-discounts.command';
export { toCustomerView, publicPaymentMethod } from './customers/read-model/customer-view';
export type { CustomerView } from './customers/read-model/customer-view';
export { CUSTOMERS_PROJECTION } from './customers/read-model/customers.projection';
// The upcoming invoice of a subscription: an invoice as create and book would make it, nothing written, and its documented line shape.
export { PreviewInvoiceQuery } from './preview-invoice/preview-invoice.query';
export { InvoiceCustomerDto, InvoiceLineDto } from './http/invoice-detail.dto';
// The hosted invoice page (served by payments) opens the links invoicing hands out.
export { HostedLinks } from './hosted-link/hosted-links';
export type { HostedLinkTarget } from './hosted-link/hosted-link-token';
