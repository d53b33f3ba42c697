import { ResourceIdPipe, resourceDocs } from '@billing/platform';
import { SubscriptionDto } from './subscription.dto';

/** Path ids are uuids; anything else names no subscription: 404 like an unknown id. */
export const SUBSCRIPTION_ID_PIPE = new ResourceIdPipe('subscription');

/** A subscription's answer headers: its version. */
export const SUBSCRIPTION_HEADERS = { etag: { description: 'the version of the subscription, for If-Match', schema: { type: 'string', example: '"1"' } } };

/** The OpenAPI of a subscription's routes, shared by the controllers under /subscriptions. */
export const SUBSCRIPTION = resourceDocs({
  type: SubscriptionDto,
  headers: SUBSCRIPTION_HEADERS,
  id: { name: 'subscriptionId', format: 'uuid', description: 'the subscription id' },
  ifMatch: { name: 'if-match', required: false, description: 'The ETag of the version the change is based on; a stale one is a 409.' },
  notFound: 'No such subscription in this environment',
});
