/**
 * The published surface of the webhooks context: the one file other packages import, as
 * `@billing/webhooks` (which ones may: context-map.js). It holds webhook subscriptions with their
 * events (domain), the dispatcher, sender and key vault with their configuration token (for tests),
 * and the context's definition.
 */
export * from './domain';
export { webhooksContext } from './webhooks.context';
export { WEBHOOKS_CONFIG } from './config/webhooks-config';
export type { WebhooksConfig } from './config/webhooks-config';
export { WebhookDispatcher } from './delivery/dispatcher';
export type { ClaimedDelivery, DeliveryOutcome } from './delivery/dispatcher';
export { WebhookSender, DestinationRefusedError, ForbiddenAddressError, FORBIDDEN_ADDRESS_REASON, guardedLookup, systemResolver } from './delivery/http-sender';
export type { Resolver, SendResult } from './delivery/http-sender';
export { SignatureKeyVault } from './key-vault';
export { subscriptionIdFor, notificationIdFor } from './ids';
