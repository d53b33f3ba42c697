import { CreateInvoicingReadModels1763700100000 } from './1763700100000-create-invoicing-read-models';

export const invoicingMigrations: Function[] = [CreateInvoicingReadModels1763700100000];
