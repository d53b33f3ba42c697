/**
 * The published surface of the subscriptions context: the one file other packages import, as
 * `@billing/subscriptions` (which ones may: context-map.js). It holds subscriptions, billing and usage
 * with their events and fold (domain), the subscription stream (payments collects the invoices it
 * books) and view, the context's definition, and the PaymentTermsQuery port (answered by payments).
 */
export * from './domain';
export { subscriptionsContext } from './subscriptions.context';
export { subscriptionsMigrations } from './migrations';
export { SUBSCRIPTION_STREAM, subscriptionStream } from './streams';
export { PaymentTermsQuery } from './ports';
// Payments cancels a subscription whose invoice's collection gave up when the dunning settings say so.
export { CancelSubscriptionCommand } from './cancel-subscription/cancel-subscription.command';
export type { SubscriptionView } from './subscription-view';
