import { CreateSubscriptionsReadModels1763800200000 } from './1763800200000-create-subscriptions-read-models';
import { CreateUsageTables1763900200000 } from './1763900200000-create-usage-tables';
import { CreateUsageEventCancellations1764000200000 } from './1764000200000-create-usage-event-cancellations';
import { IndexSubscriptionsDueByEnvironment1764600300000 } from './1764600300000-index-subscriptions-due-by-environment';
import { UsageEventsAggregatedValues1764600500000 } from './1764600500000-usage-events-aggregated-values';
import { RedactSubscriptionPaymentTokens1764601100000 } from './1764601100000-redact-subscription-payment-tokens';

export const subscriptionsMigrations: Function[] = [
  CreateSubscriptionsReadModels1763800200000,
  CreateUsageTables1763900200000,
  CreateUsageEventCancellations1764000200000,
  IndexSubscriptionsDueByEnvironment1764600300000,
  UsageEventsAggregatedValues1764600500000,
  RedactSubscriptionPaymentTokens1764601100000,
];
