import { StreamRef } from '@billing/event-store';
import { uuidV5 } from '@billing/shared-kernel';

/** Stream types: stored in every event row, never renamed. */
export const SUBSCRIPTION_STREAM = 'subscription';
export const SUBSCRIPTION_HANDLE_STREAM = 'subscription-handle';
export const CUSTOMER_FIRST_SUBSCRIPTION_STREAM = 'customer-first-subscription';

/** Fixed namespaces of the name-based ids (random v4 uuids chosen once; never change them). */
const HANDLE_NAMESPACE = '3c9e5a1f-7b2d-4e8c-9a6f-1d0b5c7e2f48';
const INVOICE_NAMESPACE = '8a4f2c6e-1b9d-4f3a-b7e5-6c2d0a9f1e37';
const FIRST_SUBSCRIPTION_NAMESPACE = 'e7c3b9a2-4d6f-4a18-9b5e-3f1c8d2a6e94';

/** One stream per subscription; its id is the subscription id, a random uuid the service chooses. */
export function subscriptionStream(environmentId: string, subscriptionId: string): StreamRef {
  return { environmentId, streamType: SUBSCRIPTION_STREAM, streamId: subscriptionId };
}

/**
 * One stream per (environment, handle) that claims the handle: creating a
 * subscription appends to it with "no stream" in the same transaction, so two
 * subscriptions can never hold one handle.
 */
export function subscriptionHandleStream(environmentId: string, handle: string): StreamRef {
  return { environmentId, streamType: SUBSCRIPTION_HANDLE_STREAM, streamId: uuidV5(`${environmentId}\u0000${handle}`, HANDLE_NAMESPACE) };
}

/** The claim of a customer record's first subscription (first-subscription-claim.ts): one per (environment, customer). */
export function customerFirstSubscriptionStream(environmentId: string, customerId: string): StreamRef {
  return {
    environmentId,
    streamType: CUSTOMER_FIRST_SUBSCRIPTION_STREAM,
    streamId: uuidV5(`${environmentId}\u0000${customerId}`, FIRST_SUBSCRIPTION_NAMESPACE),
  };
}

/**
 * The invoice of a subscription's charges due at one instant: the same
 * inputs always name the same invoice, so a second attempt to bill them finds
 * the invoice stream taken and writes nothing.
 */
export function subscriptionInvoiceId(environmentId: string, subscriptionId: string, billAt: Date, itemIds?: readonly string[]): string {
  // An item's charge billed after the others of its billAt were (a failed item's retry and catch-up): its invoice is named by its items too.
  const name = `${environmentId}/${subscriptionId}/${billAt.toISOString()}${itemIds === undefined ? '' : `/${itemIds.join(',')}`}`;
  return uuidV5(name, INVOICE_NAMESPACE);
}

export const BILLABLE_METRIC_STREAM = 'billable-metric';
export const USAGE_SETTINGS_STREAM = 'usage-settings';
const METRIC_NAMESPACE = '5d2b8e41-9c3a-4f7e-8b16-2a9e0c4d7f53';

/** One stream per (environment, metric code): a code is created once. */
export function billableMetricId(environmentId: string, code: string): string {
  return uuidV5(`${environmentId}\u0000${code}`, METRIC_NAMESPACE);
}

export function billableMetricStream(environmentId: string, code: string): StreamRef {
  return { environmentId, streamType: BILLABLE_METRIC_STREAM, streamId: billableMetricId(environmentId, code) };
}

/** One settings stream per environment; its id is the environment id. */
export function usageSettingsStream(environmentId: string): StreamRef {
  return { environmentId, streamType: USAGE_SETTINGS_STREAM, streamId: environmentId };
}
