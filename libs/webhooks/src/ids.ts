import { uuidV5 } from '@billing/shared-kernel';
import { WEBHOOK_SUBSCRIPTION_STREAM_TYPE } from './domain';

/** One subscription stream per (environment, normalised URL): subscribing again finds it. */
export function subscriptionIdFor(environmentId: string, normalisedUrl: string): string {
  return uuidV5(`${WEBHOOK_SUBSCRIPTION_STREAM_TYPE}:${normalisedUrl}`, environmentId);
}

/**
 * The notification id: the event id for the first webhook name of an event,
 * a uuid derived from (event id, name) for any further one. Stable across
 * retries and redeliveries, so receivers can use it as an idempotency key.
 */
export function notificationIdFor(eventId: string, name: string, index: number): string {
  return index === 0 ? eventId : uuidV5(`notification:${name}`, eventId);
}

/** One delivery per (notification, subscription). */
export function deliveryIdFor(notificationId: string, subscriptionId: string): string {
  return uuidV5(`delivery:${subscriptionId}`, notificationId);
}
