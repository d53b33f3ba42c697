import { CreateSubscriptionsReadModels1763800200000 } from './1763800200000-create-subscriptions-read-models';

export const subscriptionsMigrations: Function[] = [CreateSubscriptionsReadModels1763800200000];
