import { EntityManager } from 'typeorm';
import { Projection, RecordedEvent } from '@billing/event-store';
import { WEBHOOK_SUBSCRIPTION_STREAM_TYPE, WebhookSubscriptionEvent } from '../domain';

export const SUBSCRIPTIONS_PROJECTION = 'webhooks.subscriptions';

/**
 * The subscription read model that the API answers from and the dispatcher
 * signs with (read-your-writes: a subscribe, rotate or delete is visible to
 * the next request). Subscription changes are rare and each is one statement,
 * so a batch is applied event by event, in order.
 */
export const subscriptionsProjection: Projection = {
  name: SUBSCRIPTIONS_PROJECTION,
  // seq: the listing's order, from an identity: a rebuild numbers rows afresh.
  tables: [{ name: 'webhook_subscriptions', compareExcept: ['seq'] }],
  streamTypes: [WEBHOOK_SUBSCRIPTION_STREAM_TYPE],
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    for (const event of events) await applyOne(event, tx);
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate webhook_subscriptions`);
  },
};

async function applyOne(recorded: RecordedEvent, tx: EntityManager): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as WebhookSubscriptionEvent;
  const key = [recorded.environmentId, recorded.streamId];
  switch (event.type) {
    case 'WebhookSubscribed':
      await tx.query(
        `insert into webhook_subscriptions (environment_id, id, url, version, status, encrypted_signature_key,
           disabled_reason, created_at, updated_at, stream_version)
         values ($1, $2, $3, $4, 'active', $5, null, $6, $6, $7)
         on conflict (environment_id, id) do update set url = excluded.url, version = excluded.version,
           status = 'active', encrypted_signature_key = excluded.encrypted_signature_key, disabled_reason = null,
           updated_at = excluded.updated_at, stream_version = excluded.stream_version`,
        [...key, event.data.url, event.data.version, event.data.encryptedSignatureKey, recorded.occurredAt, recorded.streamVersion],
      );
      return;
    case 'WebhookSignatureKeyRotated':
      await tx.query(
        `update webhook_subscriptions set encrypted_signature_key = $3, updated_at = $4, stream_version = $5
          where environment_id = $1 and id = $2 and status = 'active'`,
        [...key, event.data.encryptedSignatureKey, recorded.occurredAt, recorded.streamVersion],
      );
      return;
    case 'WebhookUnsubscribed':
      await tx.query(
        `update webhook_subscriptions set status = 'unsubscribed', encrypted_signature_key = null, disabled_reason = null, updated_at = $3, stream_version = $4
          where environment_id = $1 and id = $2`,
        [...key, recorded.occurredAt, recorded.streamVersion],
      );
      return;
    case 'WebhookDisabled':
      await tx.query(
        // As the subscription's state: a disabled one keeps no key (subscribing again makes a new one).
        `update webhook_subscriptions set status = 'disabled', disabled_reason = $3, encrypted_signature_key = null, updated_at = $4, stream_version = $5
          where environment_id = $1 and id = $2 and status = 'active'`,
        [...key, event.data.reason, recorded.occurredAt, recorded.streamVersion],
      );
      return;
    default:
      return;
  }
}
