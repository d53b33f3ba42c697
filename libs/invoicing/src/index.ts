export * from './domain';
export { InvoicingModule } from './invoicing.module';
export { invoicingMigrations } from './migrations';
export { INVOICE_STREAM, TAX_CODE_STREAM, taxCodeStreamId, toTaxCodeView } from './infrastructure/streams';
export type { TaxCodeView } from './infrastructure/streams';
export { INVOICING_PROJECTION } from './infrastructure/invoicing.projection';
/** The list endpoints' query-parameter check (unknown or repeated parameters are a 422 at /query/<name>), shared with the catalog. */
export { readQuery } from './http/params';
