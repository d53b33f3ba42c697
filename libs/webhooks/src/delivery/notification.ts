import { NotificationPayload, signNotification, standardWebhookHeaders, WebhookVersion } from '../domain';

export interface StoredNotification {
  readonly id: string;
  readonly type: string;
  readonly environmentId: string;
  readonly occurredAt: Date;
  /** The resource as the API returned it at the event (newest representation). */
  readonly data: unknown;
}

/**
 * The representation of `data` for a subscription's version. 2022-03 is the
 * only version so far and is the API representation as is; a future version
 * that changes a resource's shape adds its downgrade step here, so existing
 * receivers keep the shape they subscribed with.
 */
export function dataForVersion(version: string, data: unknown): unknown {
  switch (version as WebhookVersion) {
    case '2022-03':
    default:
      return data;
  }
}

export interface OutgoingNotification {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** Body (signature last) and headers (Standard Webhooks) of one delivery attempt. */
export function buildNotification(notification: StoredNotification, version: string, signatureKey: string, now: Date): OutgoingNotification {
  const timestamp = Math.floor(now.getTime() / 1000);
  const payload: NotificationPayload = {
    id: notification.id,
    type: notification.type,
    environmentId: notification.environmentId,
    occurredAt: notification.occurredAt.toISOString(),
    version,
    data: dataForVersion(version, notification.data),
    timestamp,
  };
  const { body } = signNotification(payload, signatureKey);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'billing-service-webhooks/1',
      ...standardWebhookHeaders(notification.id, timestamp, body, signatureKey),
    },
  };
}
