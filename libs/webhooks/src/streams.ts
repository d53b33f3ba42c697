import { StreamRef } from '@billing/event-store';
import { WEBHOOK_SUBSCRIPTION_STREAM_TYPE } from './domain';

/** One stream per subscription; its id is derived from (environment, normalised URL): see subscriptionIdFor. */
export function webhookSubscriptionStream(environmentId: string, id: string): StreamRef {
  return { environmentId, streamType: WEBHOOK_SUBSCRIPTION_STREAM_TYPE, streamId: id };
}
