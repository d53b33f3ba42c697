export * from './domain';
export { subscriptionsContext } from './subscriptions.context';
export { subscriptionsMigrations } from './migrations';
export { SUBSCRIPTION_STREAM, subscriptionStream } from './streams';
export type { SubscriptionView } from './subscription-view';
