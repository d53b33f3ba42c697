import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { queryRows, Reactor, RecordedEvent } from '@billing/event-store';
import { NotificationCatalogue } from '@billing/platform';
import { RETRY_WINDOW_SECONDS, WEBHOOK_SUBSCRIPTION_STREAM_TYPE } from '../domain';
import { deliveryIdFor, notificationIdFor } from '../ids';

export const FAN_OUT_REACTOR = 'webhooks.fan-out';
export const DELIVERIES_CHANNEL = 'webhook_deliveries';
/** Set on the transaction's QueryRunner.data when deliveries were created: the dispatcher is woken after commit. */
export const DELIVERIES_CREATED = 'webhooks.deliveriesCreated';

/**
 * Turns events into deliveries, in log order. Which notifications an event
 * produces, and the resource they carry, come from the catalogue the
 * contexts publish: this context knows no other context's events. It keeps
 * its own list of active subscriptions (webhook_fanout_targets) from the
 * Webhook* events it sees in the same order, so an event goes exactly to the
 * subscriptions that were active before it, whatever the projections' progress.
 *
 * A reactor, not a projection: deliveries are inserted in the same transaction
 * as its checkpoint, so each notification is queued exactly once, and it is
 * never reset or replayed (`npm run rebuild` would otherwise send every
 * notification again, or cancel pending deliveries).
 */
@Injectable()
export class FanOutReactor implements Reactor {
  readonly name = FAN_OUT_REACTOR;
  readonly streamTypes = 'all' as const;

  constructor(private readonly catalogue: NotificationCatalogue) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    let created = false;
    // Subscriptions change rarely: the active ones are read once per run of events between two changes.
    let targets: Map<string, string[]> | null = null;
    for (const event of events) {
      if (event.streamType === WEBHOOK_SUBSCRIPTION_STREAM_TYPE) {
        await trackSubscription(event, tx);
        targets = null;
        continue;
      }
      const names = this.catalogue.namesFor(event);
      if (names.length === 0) continue;
      targets ??= await activeTargets(tx, events);
      const subscriptionIds = targets.get(event.environmentId);
      if (!subscriptionIds) continue;
      await this.fanOut(event, names, subscriptionIds, tx);
      created = true;
    }
    if (!created) return;
    // Other processes' dispatchers hear this at commit; this process's is woken by the commit hook.
    await tx.query(`select pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    if (tx.queryRunner) tx.queryRunner.data[DELIVERIES_CREATED] = true;
  }

  private async fanOut(event: RecordedEvent, names: readonly string[], subscriptionIds: readonly string[], tx: EntityManager): Promise<void> {
    const data = await this.catalogue.resourceAt(event, tx);
    // Due at once and retried for 72 hours in real time from when the event was recorded, whatever its
    // environment's test clock says: the notification carries occurredAt, its environment's time.
    const deadline = new Date(event.recordedAt.getTime() + RETRY_WINDOW_SECONDS * 1000);
    for (const [index, name] of names.entries()) {
      const notificationId = notificationIdFor(event.eventId, name, index);
      await tx.query(
        `insert into webhook_notifications (environment_id, id, event_id, type, occurred_at, data)
         values ($1, $2, $3, $4, $5, $6) on conflict do nothing`,
        [event.environmentId, notificationId, event.eventId, name, event.occurredAt, JSON.stringify(data ?? null)],
      );
      await tx.query(
        `insert into webhook_deliveries (environment_id, id, subscription_id, notification_id, status, next_attempt_at,
           deadline_at, created_at)
         select $1, d.id, d.subscription_id, $2, 'pending', $3, $4, $3
           from unnest($5::uuid[], $6::uuid[]) as d(subscription_id, id)
         on conflict do nothing`,
        [event.environmentId, notificationId, event.recordedAt, deadline, subscriptionIds, subscriptionIds.map((id) => deliveryIdFor(notificationId, id))],
      );
    }
  }
}

/** The active subscriptions of every environment in the batch, by environment (one query). */
async function activeTargets(tx: EntityManager, events: readonly RecordedEvent[]): Promise<Map<string, string[]>> {
  const environments = [...new Set(events.map((e) => e.environmentId))];
  const rows = await queryRows<{ environment_id: string; subscription_id: string }>(
    tx,
    `select environment_id, subscription_id from webhook_fanout_targets
      where environment_id = any($1::uuid[]) and active order by environment_id, subscription_id`,
    [environments],
  );
  const targets = new Map<string, string[]>();
  for (const row of rows) targets.set(row.environment_id, [...(targets.get(row.environment_id) ?? []), row.subscription_id]);
  return targets;
}

async function trackSubscription(event: RecordedEvent, tx: EntityManager): Promise<void> {
  const key = [event.environmentId, event.streamId];
  switch (event.type) {
    case 'WebhookSubscribed':
      await tx.query(
        `insert into webhook_fanout_targets (environment_id, subscription_id, active) values ($1, $2, true)
         on conflict (environment_id, subscription_id) do update set active = true`,
        key,
      );
      return;
    case 'WebhookDisabled':
    case 'WebhookUnsubscribed': {
      await tx.query(`update webhook_fanout_targets set active = false where environment_id = $1 and subscription_id = $2`, key);
      // What is still queued for it will not be sent.
      await tx.query(
        `update webhook_deliveries set status = $3, lease_expires_at = null, lease_token = null, next_attempt_at = null
          where environment_id = $1 and subscription_id = $2 and status = 'pending'`,
        [...key, event.type === 'WebhookDisabled' ? 'disabled' : 'cancelled'],
      );
      return;
    }
    default:
      return;
  }
}
