/**
 * The published surface of the payments context: the one file other packages import, as
 * `@billing/payments` (which ones may: context-map.js). It holds payments, providers and collections
 * with their events (domain), their streams, the collection and payment workers and the credit-note refunds reactor (for tests and tools),
 * and the context's definition.
 */
export * from './domain';
export { paymentsContext } from './payments.context';
export { paymentsMigrations } from './migrations';
/** For tests and tools: the streams, and the workers that collect invoices and make payments. */
export { collectionStream, paymentStream } from './streams';
export { CollectionEngine } from './collect-invoices/collection-engine';
export { PaymentFlow } from './payment-flow';
export { PaymentGateways } from './gateway/gateway-registry';
export { CreditNoteRefundsReactor, creditNoteRefundId } from './refund-credit-notes/credit-note-refunds.reactor';
