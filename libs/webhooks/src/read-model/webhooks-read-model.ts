import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { keysetPage, Page, pageTokenCodec, tokenField } from '@billing/platform';

export interface WebhookSummary {
  readonly id: string;
  readonly url: string;
  readonly version: string;
  readonly status: 'active' | 'disabled' | 'unsubscribed';
  readonly disabledReason: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface DeliveryAttemptView {
  readonly attemptedAt: string;
  readonly outcome: 'delivered' | 'failed';
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

export interface DeliveryView {
  readonly id: string;
  readonly webhookId: string;
  readonly notificationId: string;
  readonly type: string;
  readonly occurredAt: string;
  readonly status: 'pending' | 'delivered' | 'discarded' | 'refused' | 'disabled' | 'cancelled';
  readonly failures: number;
  readonly nextAttemptAt: string | null;
  readonly deliveredAt: string | null;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly createdAt: string;
  readonly attempts: DeliveryAttemptView[];
}

interface SubscriptionRow {
  id: string;
  url: string;
  version: string;
  status: WebhookSummary['status'];
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
  seq: string;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  notification_id: string;
  type: string;
  occurred_at: Date;
  status: DeliveryView['status'];
  failures: number;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  seq: string;
}

/** Both lists page by the row's seq (a bigint, as text). */
const SEQ_TOKEN = pageTokenCodec({ seq: tokenField.bigint });

/** Reads of the webhooks tables, always scoped by environment. */
@Injectable()
export class WebhooksReadModel {
  constructor(private readonly dataSource: DataSource) {}

  /** Active and disabled subscriptions, oldest first; deleted ones are not listed. */
  async listSubscriptions(environmentId: string, limit: number, pageToken: string | undefined): Promise<Page<WebhookSummary>> {
    const after = pageToken ? SEQ_TOKEN.decode(pageToken).seq : '0';
    const rows = await queryRows<SubscriptionRow>(
      this.dataSource.manager,
      `select id, url, version, status, disabled_reason, created_at, updated_at, seq::text
         from webhook_subscriptions
        where environment_id = $1 and status <> 'unsubscribed' and seq > $2
        order by webhook_subscriptions.seq limit $3`,
      [environmentId, after, limit + 1],
    );
    return keysetPage(rows, { limit, codec: SEQ_TOKEN, key: (row) => ({ seq: row.seq }), item: toSummary });
  }

  async findSubscription(environmentId: string, id: string): Promise<WebhookSummary | null> {
    const [row] = await queryRows<SubscriptionRow>(
      this.dataSource.manager,
      `select id, url, version, status, disabled_reason, created_at, updated_at, seq::text
         from webhook_subscriptions where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row ? toSummary(row) : null;
  }

  /** Deliveries of one subscription, newest first, each with its attempts (oldest first). */
  async listDeliveries(environmentId: string, subscriptionId: string, limit: number, pageToken: string | undefined): Promise<Page<DeliveryView>> {
    const before = pageToken ? SEQ_TOKEN.decode(pageToken).seq : null;
    const rows = await queryRows<DeliveryRow>(
      this.dataSource.manager,
      `select d.id, d.subscription_id, d.notification_id, n.type, n.occurred_at, d.status, d.failures, d.next_attempt_at,
              d.delivered_at, d.last_status_code, d.last_error, d.created_at, d.seq::text
         from webhook_deliveries d
         join webhook_notifications n on n.environment_id = d.environment_id and n.id = d.notification_id
        where d.environment_id = $1 and d.subscription_id = $2 and ($3::bigint is null or d.seq < $3::bigint)
        order by d.seq desc limit $4`,
      [environmentId, subscriptionId, before, limit + 1],
    );
    const attempts = await this.attemptsOf(
      environmentId,
      rows.slice(0, limit).map((r) => r.id),
    );
    return keysetPage(rows, { limit, codec: SEQ_TOKEN, key: (row) => ({ seq: row.seq }), item: (row) => toDeliveryView(row, attempts.get(row.id) ?? []) });
  }

  async findDelivery(environmentId: string, id: string): Promise<DeliveryView | null> {
    const [row] = await queryRows<DeliveryRow>(
      this.dataSource.manager,
      `select d.id, d.subscription_id, d.notification_id, n.type, n.occurred_at, d.status, d.failures, d.next_attempt_at,
              d.delivered_at, d.last_status_code, d.last_error, d.created_at, d.seq::text
         from webhook_deliveries d
         join webhook_notifications n on n.environment_id = d.environment_id and n.id = d.notification_id
        where d.environment_id = $1 and d.id = $2`,
      [environmentId, id],
    );
    if (!row) return null;
    return toDeliveryView(row, (await this.attemptsOf(environmentId, [row.id])).get(row.id) ?? []);
  }

  private async attemptsOf(environmentId: string, deliveryIds: string[]): Promise<Map<string, DeliveryAttemptView[]>> {
    const byDelivery = new Map<string, DeliveryAttemptView[]>();
    if (deliveryIds.length === 0) return byDelivery;
    const rows = await queryRows<{
      delivery_id: string;
      attempted_at: Date;
      outcome: DeliveryAttemptView['outcome'];
      status_code: number | null;
      error: string | null;
      duration_ms: number;
    }>(
      this.dataSource.manager,
      `select delivery_id, attempted_at, outcome, status_code, error, duration_ms
         from webhook_delivery_attempts
        where environment_id = $1 and delivery_id = any($2::uuid[])
        order by attempted_at, id`,
      [environmentId, deliveryIds],
    );
    for (const row of rows) {
      const list = byDelivery.get(row.delivery_id) ?? [];
      list.push({
        attemptedAt: row.attempted_at.toISOString(),
        outcome: row.outcome,
        statusCode: row.status_code,
        error: row.error,
        durationMs: row.duration_ms,
      });
      byDelivery.set(row.delivery_id, list);
    }
    return byDelivery;
  }
}

function toSummary(row: SubscriptionRow): WebhookSummary {
  return {
    id: row.id,
    url: row.url,
    version: row.version,
    status: row.status,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function toDeliveryView(row: DeliveryRow, attempts: DeliveryAttemptView[]): DeliveryView {
  return {
    id: row.id,
    webhookId: row.subscription_id,
    notificationId: row.notification_id,
    type: row.type,
    occurredAt: row.occurred_at.toISOString(),
    status: row.status,
    failures: row.failures,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    attempts,
  };
}
