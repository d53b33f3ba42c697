import { BoundedContext } from '@billing/platform';
import { WEBHOOK_SUBSCRIPTION_STREAM_TYPE } from './domain';
import { webhooksMigrations } from './migrations';
import { FanOutReactor } from './projections/fan-out.reactor';
import { subscriptionsProjection } from './projections/subscriptions.projection';
import { WEBHOOKS_PROBLEMS } from './webhooks.problems';
import { WebhooksModule } from './webhooks.module';

/**
 * Webhooks: subscriptions with encrypted signature keys, and the durable,
 * signed delivery of every notification the other contexts publish (the
 * catalogue is built from their definitions; this context names none).
 * Subscriptions publish no notifications of their own.
 */
export const webhooksContext: BoundedContext = {
  name: 'webhooks',
  module: WebhooksModule,
  migrations: webhooksMigrations,
  streams: [
    {
      type: WEBHOOK_SUBSCRIPTION_STREAM_TYPE,
      idScheme: 'uuid v5 of (environment, normalised URL): subscribing a URL again finds the same stream',
      events: [
        { type: 'WebhookSubscribed', schemaVersion: 1 },
        { type: 'WebhookSignatureKeyRotated', schemaVersion: 1 },
        { type: 'WebhookUnsubscribed', schemaVersion: 1 },
        { type: 'WebhookDisabled', schemaVersion: 1 },
      ],
      // History only: there is no GET /webhooks/{id} to read as of an instant.
      resource: { type: 'webhook_subscription', path: 'webhooks' },
      // The public log never shows a signature key, not even encrypted.
      publicData: (_type, data) =>
        typeof data === 'object' && data !== null && 'encryptedSignatureKey' in data ? { ...data, encryptedSignatureKey: '[redacted]' } : data,
    },
  ],
  projections: [subscriptionsProjection],
  reactors: [FanOutReactor],
  notifications: [],
  problems: WEBHOOKS_PROBLEMS,
};
