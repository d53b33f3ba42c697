export * from './domain';
export { paymentsContext } from './payments.context';
export { paymentsMigrations } from './migrations';
export { paymentSettingsStream } from './streams';
