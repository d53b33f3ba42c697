import { paymentsGatewayMigrations } from '../gateway/migrations';
import { CreatePaymentsReadModels1763800300000 } from './1763800300000-create-payments-read-models';
import { AddPaymentsRefundPendingSince1764000300000 } from './1764000300000-add-payments-refund-pending-since';
import { AddPaymentsRecordedAt1764100300000 } from './1764100300000-add-payments-recorded-at';
import { PaymentsAwaitingLookupIndexes1764500310000 } from './1764500310000-payments-awaiting-lookup-indexes';
import { DropPaymentInvoiceFacts1764600800000 } from './1764600800000-drop-payment-invoice-facts';
import { RedactCollectionPaymentTokens1764601110000 } from './1764601110000-redact-collection-payment-tokens';
import { PaymentsOpenByInvoiceIndex1764700300000 } from './1764700300000-payments-open-by-invoice-index';

export const paymentsMigrations: Function[] = [
  CreatePaymentsReadModels1763800300000,
  ...paymentsGatewayMigrations,
  AddPaymentsRefundPendingSince1764000300000,
  AddPaymentsRecordedAt1764100300000,
  PaymentsAwaitingLookupIndexes1764500310000,
  DropPaymentInvoiceFacts1764600800000,
  RedactCollectionPaymentTokens1764601110000,
  PaymentsOpenByInvoiceIndex1764700300000,
];
