export * from './domain';
export { paymentsContext } from './payments.context';
export { paymentsMigrations } from './migrations';
/** For tests and tools: the streams, and the workers that collect invoices and make payments. */
export { collectionStream, paymentSettingsStream, paymentStream } from './streams';
export { CollectionEngine } from './collect-invoices/collection-engine';
export { PaymentFlow } from './payment-flow';
