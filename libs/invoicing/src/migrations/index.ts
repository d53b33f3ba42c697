import { CreateInvoicingReadModels1763700100000 } from './1763700100000-create-invoicing-read-models';
import { OmitNullDiscountPercentage1763700110000 } from './1763700110000-omit-null-discount-percentage';
import { StoreInvoicingState1763700120000 } from './1763700120000-store-invoicing-state';
import { AddInvoiceViewUncollectible1764200100000 } from './1764200100000-add-invoice-view-uncollectible';
import { CreateCustomers1764200200000 } from './1764200200000-create-customers';
import { RefoldInvoiceState1764300100000 } from './1764300100000-refold-invoice-state';
import { CreateCustomerBalanceTransactions1764400100000 } from './1764400100000-create-customer-balance-transactions';
import { InvoicesLz41764600600000 } from './1764600600000-invoices-lz4';
import { InvoiceStateAsText1764600930000 } from './1764600930000-invoice-state-as-text';
import { RedactCustomerPaymentTokens1764701200000 } from './1764701200000-redact-customer-payment-tokens';
export const invoicingMigrations: Function[] = [
  CreateInvoicingReadModels1763700100000,
  OmitNullDiscountPercentage1763700110000,
  StoreInvoicingState1763700120000,
  AddInvoiceViewUncollectible1764200100000,
  CreateCustomers1764200200000,
  RefoldInvoiceState1764300100000,
  CreateCustomerBalanceTransactions1764400100000,
  InvoicesLz41764600600000,
  InvoiceStateAsText1764600930000,
  RedactCustomerPaymentTokens1764701200000,
];
