import { createHash } from 'node:crypto';
import { WEBHOOK_SUBSCRIPTION_STREAM_TYPE } from './domain';

/** RFC 9562 name-based uuid (version 5, SHA-1): the same inputs always give the same id. */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new RangeError('namespace must be a uuid');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

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
