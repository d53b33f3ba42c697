export * from './domain';
export { InvoicingModule } from './invoicing.module';
export { invoicingMigrations } from './migrations';
