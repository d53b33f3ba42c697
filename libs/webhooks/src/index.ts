export * from './domain';
export { webhooksContext } from './webhooks.context';
export { WEBHOOKS_CONFIG } from './config/webhooks-config';
export type { WebhooksConfig } from './config/webhooks-config';
export { WebhookDispatcher } from './delivery/dispatcher';
export type { ClaimedDelivery, DeliveryOutcome } from './delivery/dispatcher';
export {
  WebhookSender,
  DestinationRefusedError,
  ForbiddenAddressError,
  FORBIDDEN_ADDRESS_REASON,
  guardedLookup,
  systemResolver,
} from './delivery/http-sender';
export type { Resolver, SendResult } from './delivery/http-sender';
export { SignatureKeyVault } from './key-vault';
export { subscriptionIdFor, notificationIdFor } from './ids';
