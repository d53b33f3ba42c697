import { BoundedContext, eventTypesOf, NotificationDefinition, StreamDefinition } from '@billing/platform';
import { AfterLastFailureReactor } from './collect-invoices/after-last-failure.reactor';
import { CollectionReactor } from './collect-invoices/collection.reactor';
import { CollectionStopReactor } from './collect-invoices/collection-stop.reactor';
import { PaymentSettlementsReactor } from './settle-invoices/payment-settlements.reactor';
import { CreditNoteRefundsReactor } from './refund-credit-notes/credit-note-refunds.reactor';
import {
  CollectionEvent,
  collectionEvolver,
  CollectionState,
  INVOICE_COLLECTION_STREAM_TYPE,
  INVOICE_PAYMENTS_STREAM_TYPE,
  PAYMENT_SETTINGS_STREAM_TYPE,
  PaymentSettingsUpdated,
  InvoicePaymentsEvent,
  PAYMENT_PROVIDER_STREAM_TYPE,
  PAYMENT_STREAM_TYPE,
  PaymentEvent,
  paymentEvolver,
  PaymentProviderEvent,
  paymentProviderEvolver,
  PaymentProviderState,
  PaymentState,
} from './domain';
import { paymentsMigrations } from './migrations';
import { PAYMENTS_PROBLEMS } from './payments.problems';
import { PaymentsModule } from './payments.module';
import { paymentsProjection } from './read-model/payments.projection';
import { collectionViewOf, paymentViewOf, providerViewOf } from './views';

/** Every event type of a stream with the schema version it is written in (a type missing here does not compile). */
const PAYMENT_EVENTS: Record<PaymentEvent['type'], number> = {
  PaymentCreated: 1,
  PaymentActionRequired: 1,
  PaymentProcessing: 1,
  PaymentSucceeded: 1,
  PaymentFailed: 1,
  PaymentRefundRequested: 1,
  PaymentRefunded: 1,
  PaymentRefundFailed: 1,
  PaymentDisputed: 1,
  PaymentDisputeClosed: 1,
};
const PROVIDER_EVENTS: Record<PaymentProviderEvent['type'], number> = { PaymentProviderEnabled: 1, PaymentProviderDisabled: 1 };
const INVOICE_PAYMENTS_EVENTS: Record<InvoicePaymentsEvent['type'], number> = { InvoicePaymentOpened: 1, InvoicePaymentClosed: 1 };
const COLLECTION_EVENTS: Record<CollectionEvent['type'], number> = {
  CollectionStarted: 1,
  CollectionAttemptStarted: 1,
  CollectionAttemptFailed: 1,
  CollectionSucceeded: 1,
  CollectionFailed: 1,
  CollectionStopped: 1,
};
const SETTINGS_EVENTS: Record<PaymentSettingsUpdated['type'], number> = { PaymentSettingsUpdated: 1 };

const paymentStream: StreamDefinition<PaymentState, PaymentEvent> = {
  type: PAYMENT_STREAM_TYPE,
  idScheme: "the payment id: a random uuid the service chooses; also the gateway's idempotency reference",
  events: eventTypesOf(PAYMENT_EVENTS),
  view: { evolver: paymentEvolver, toView: paymentViewOf },
  resource: { type: 'payment', path: 'payments' },
};
const providerStream: StreamDefinition<PaymentProviderState, PaymentProviderEvent> = {
  type: PAYMENT_PROVIDER_STREAM_TYPE,
  idScheme: 'uuid v5 of (environment, provider name)',
  events: eventTypesOf(PROVIDER_EVENTS),
  // The view never holds the credentials (not even encrypted): notifications carry this.
  view: { evolver: paymentProviderEvolver, toView: providerViewOf },
  // The public log never shows credentials, not even encrypted.
  publicData: (_type, data) => redact(data, 'credentials'),
};
const invoicePaymentsStream: StreamDefinition = {
  type: INVOICE_PAYMENTS_STREAM_TYPE,
  idScheme: "uuid v5 of (environment, invoice id): serialises an invoice's payments",
  events: eventTypesOf(INVOICE_PAYMENTS_EVENTS),
};

const collectionStream: StreamDefinition<CollectionState, CollectionEvent> = {
  type: INVOICE_COLLECTION_STREAM_TYPE,
  idScheme: 'uuid v5 of (environment, invoice id): the automatic collection of a subscription invoice',
  events: eventTypesOf(COLLECTION_EVENTS),
  // Notifications carry the collection without the payment method token.
  view: { evolver: collectionEvolver, toView: collectionViewOf },
  // Nor the payment method token a collection charges.
  publicData: (_type, data) => redact(data, 'token'),
};
const settingsStream: StreamDefinition = {
  type: PAYMENT_SETTINGS_STREAM_TYPE,
  idScheme: "uuid v5 of the environment id: the environment's payment settings",
  events: eventTypesOf(SETTINGS_EVENTS),
};

/** The data with `member` replaced by "[redacted]" when it holds a value. */
function redact(data: unknown, member: string): unknown {
  if (typeof data !== 'object' || data === null) return data;
  const value = (data as Record<string, unknown>)[member];
  return value === undefined || value === null ? data : { ...data, [member]: '[redacted]' };
}

const notifications: NotificationDefinition[] = [
  {
    name: 'payment.created',
    streamType: PAYMENT_STREAM_TYPE,
    eventType: 'PaymentCreated',
    description: 'A payment is recorded (pending), before its gateway call.',
  },
  {
    name: 'payment.succeeded',
    streamType: PAYMENT_STREAM_TYPE,
    eventType: 'PaymentSucceeded',
    description: 'A payment succeeded; its invoice is settled by it.',
  },
  {
    name: 'payment.failed',
    streamType: PAYMENT_STREAM_TYPE,
    eventType: 'PaymentFailed',
    description: 'A payment failed (declined, or the gateway was not reached).',
  },
  {
    name: 'payment.refunded',
    streamType: PAYMENT_STREAM_TYPE,
    eventType: 'PaymentRefunded',
    description: 'A payment is refunded, wholly or in part: the provider made the refund.',
  },
  {
    name: 'payment.refund_failed',
    streamType: PAYMENT_STREAM_TYPE,
    eventType: 'PaymentRefundFailed',
    description: 'The provider refused a refund or could not be reached: nothing was refunded (the refund entry carries failureCode and failureMessage).',
  },
  {
    name: 'payment.action_required',
    streamType: PAYMENT_STREAM_TYPE,
    eventType: 'PaymentActionRequired',
    description: 'The customer must act before the provider charges (3-D Secure): the payment is requires_action, with nextAction.url.',
  },
  {
    name: 'payment.disputed',
    streamType: PAYMENT_STREAM_TYPE,
    eventType: 'PaymentDisputed',
    description: 'The customer disputed a succeeded payment: the disputed amount is taken back from its invoice (unpaid again) until the dispute is won.',
  },
  {
    name: 'payment.dispute_closed',
    streamType: PAYMENT_STREAM_TYPE,
    eventType: 'PaymentDisputeClosed',
    description: "A payment's dispute closed: won (the amount is settled on the invoice again, the payment succeeded) or lost (it stays taken).",
  },
  {
    name: 'payment_provider.enabled',
    streamType: PAYMENT_PROVIDER_STREAM_TYPE,
    eventType: 'PaymentProviderEnabled',
    description: 'A payment provider is enabled or its credentials rotated (never carried).',
  },
  {
    name: 'invoice.payment_failed',
    streamType: INVOICE_COLLECTION_STREAM_TYPE,
    eventType: 'CollectionFailed',
    description:
      "A subscription invoice's automatic collection gave up (a hard decline, or every retry failed): the invoice stays unsettled; the dunning settings' afterLastFailure says what follows.",
  },
  {
    name: 'payment_provider.disabled',
    streamType: PAYMENT_PROVIDER_STREAM_TYPE,
    eventType: 'PaymentProviderDisabled',
    description: 'A payment provider is disabled.',
  },
];

export const paymentsContext: BoundedContext = {
  name: 'payments',
  module: PaymentsModule,
  migrations: paymentsMigrations,
  streams: [paymentStream, providerStream, invoicePaymentsStream, collectionStream, settingsStream],
  projections: [paymentsProjection],
  reactors: [CollectionReactor, CollectionStopReactor, AfterLastFailureReactor, PaymentSettlementsReactor, CreditNoteRefundsReactor],
  notifications,
  problems: PAYMENTS_PROBLEMS,
};
