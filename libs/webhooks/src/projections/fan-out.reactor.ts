import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { jsonRows, jsonRowsFrom, queryRows, Reactor, RecordedEvent } from '@billing/event-store';
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
    const names = events.map((event) => (event.streamType === WEBHOOK_SUBSCRIPTION_STREAM_TYPE ? [] : this.catalogue.namesFor(event)));
    const notifying = events.filter((_event, index) => names[index].length > 0);
    if (notifying.length === 0 && !events.some((event) => event.streamType === WEBHOOK_SUBSCRIPTION_STREAM_TYPE)) return;
    // Everything is read before anything is written: until its first write this transaction has no id, so it
    // does not hold back the snapshot horizon that the projections (and so the API's writes) wait on.
    // Subscriptions change rarely: the active ones are read once per run of events between two changes.
    let targets: Map<string, string[]> | null = notifying.length > 0 ? await activeTargets(tx, events) : null;
    // Resources only where a delivery can follow: an environment with a subscription now or a change in this batch.
    const changing = new Set(events.filter((event) => event.streamType === WEBHOOK_SUBSCRIPTION_STREAM_TYPE).map((event) => event.environmentId));
    const resources = await this.catalogue.resourcesAt(
      notifying.filter((event) => targets?.has(event.environmentId) || changing.has(event.environmentId)),
      tx,
    );
    const queue = new QueuedNotifications();
    let created = false;
    for (const [index, event] of events.entries()) {
      if (event.streamType === WEBHOOK_SUBSCRIPTION_STREAM_TYPE) {
        // What is queued so far goes in first, so a cancellation reaches it as it did one event at a time.
        await queue.insert(tx);
        await trackSubscription(event, tx);
        targets = null;
        continue;
      }
      if (names[index].length === 0) continue;
      targets ??= await activeTargets(tx, events);
      const subscriptionIds = targets.get(event.environmentId);
      if (!subscriptionIds) continue;
      if (!resources.has(event.eventId)) throw new Error(`fan-out: no resource read for event ${event.eventId}`);
      queue.add(event, names[index], subscriptionIds, resources.get(event.eventId));
      created = true;
    }
    if (!created) return;
    await queue.insert(tx);
    if (tx.queryRunner) tx.queryRunner.data[DELIVERIES_CREATED] = true;
  }
}

/**
 * The notifications and deliveries of a run of events, inserted together in
 * one statement (with the NOTIFY that other processes' dispatchers hear at
 * commit; this process's is woken by the commit hook).
 */
class QueuedNotifications {
  private notifications: object[] = [];
  private deliveries: object[] = [];

  add(event: RecordedEvent, names: readonly string[], subscriptionIds: readonly string[], data: unknown): void {
    // Due at once and retried for 72 hours in real time from when the event was recorded, whatever its
    // environment's test clock says: the notification carries occurredAt, its environment's time.
    const deadline = new Date(event.recordedAt.getTime() + RETRY_WINDOW_SECONDS * 1000);
    for (const [index, name] of names.entries()) {
      const notificationId = notificationIdFor(event.eventId, name, index);
      this.notifications.push({
        environment_id: event.environmentId,
        id: notificationId,
        event_id: event.eventId,
        type: name,
        occurred_at: event.occurredAt,
        data,
      });
      for (const subscriptionId of subscriptionIds) {
        this.deliveries.push({
          environment_id: event.environmentId,
          id: deliveryIdFor(notificationId, subscriptionId),
          subscription_id: subscriptionId,
          notification_id: notificationId,
          due_at: event.recordedAt,
          deadline_at: deadline,
        });
      }
    }
  }

  async insert(tx: EntityManager): Promise<void> {
    if (this.notifications.length === 0) return;
    await queryRows(
      tx,
      `with notifications as (
         insert into webhook_notifications (environment_id, id, event_id, type, occurred_at, data)
         -- A resource that is absent is stored as JSON null, as it always was.
         select environment_id, id, event_id, type, occurred_at, coalesce(data, 'null')
           from ${jsonRowsFrom(1, 'environment_id uuid, id uuid, event_id uuid, type text, occurred_at timestamptz, data jsonb')}
         on conflict do nothing),
       deliveries as (
         insert into webhook_deliveries (environment_id, id, subscription_id, notification_id, status, next_attempt_at, deadline_at, created_at)
         select environment_id, id, subscription_id, notification_id, 'pending', due_at, deadline_at, due_at
           from ${jsonRowsFrom(2, 'environment_id uuid, id uuid, subscription_id uuid, notification_id uuid, due_at timestamptz, deadline_at timestamptz')}
         on conflict do nothing)
       select pg_notify($3, '')`,
      [jsonRows(this.notifications), jsonRows(this.deliveries), DELIVERIES_CHANNEL],
    );
    this.notifications = [];
    this.deliveries = [];
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
