import { analyticsContext } from '@billing/analytics';
import { catalogContext } from '@billing/catalog';
import { couponsContext } from '@billing/coupons';
import { emailContext } from '@billing/email';
import { invoicingContext } from '@billing/invoicing';
import { paymentsContext } from '@billing/payments';
import { BoundedContext } from '@billing/platform';
import { subscriptionsContext } from '@billing/subscriptions';
import { templatesContext } from '@billing/templates';
import { webhooksContext } from '@billing/webhooks';

/**
 * The bounded contexts this service is built from. The app's modules, the
 * migrations, `npm run rebuild`, the problem catalogue and the webhook
 * catalogue all derive from this list: adding a context is adding its folder
 * under libs/ and one line here.
 */
export const CONTEXTS: readonly BoundedContext[] = [
  invoicingContext,
  catalogContext,
  couponsContext,
  subscriptionsContext,
  paymentsContext,
  templatesContext,
  emailContext,
  analyticsContext,
  webhooksContext,
];
