import { BoundedContext, eventTypesOf, NotificationDefinition, StreamDefinition } from '@billing/platform';
import {
  BillableMetricEvent,
  CustomerFirstSubscriptionClaimed,
  billableMetricEvolver,
  BillableMetricState,
  SubscriptionCreatedData,
  SubscriptionEvent,
  subscriptionEvolver,
  SubscriptionHandleClaimed,
  SubscriptionState,
  UsageSettingsChanged,
} from './domain';
import { subscriptionsMigrations } from './migrations';
import { subscriptionsProjection } from './read-model/subscriptions.projection';
import {
  BILLABLE_METRIC_STREAM,
  billableMetricStream as billableMetricStreamOf,
  CUSTOMER_FIRST_SUBSCRIPTION_STREAM,
  SUBSCRIPTION_HANDLE_STREAM,
  SUBSCRIPTION_STREAM,
  USAGE_SETTINGS_STREAM,
} from './streams';
import { publicPaymentMethod, subscriptionViewOf } from './subscription-view';
import { SUBSCRIPTIONS_PROBLEMS } from './subscriptions.problems';
import { SubscriptionsModule } from './subscriptions.module';

/** Every event type of a stream with the schema version it is written in (a type missing here does not compile). */
const SUBSCRIPTION_EVENTS: Record<SubscriptionEvent['type'], number> = {
  SubscriptionCreated: 1,
  SubscriptionCancelled: 1,
  SubscriptionReactivated: 1,
  SubscriptionPaused: 1,
  SubscriptionResumed: 1,
  SubscriptionRenewed: 1,
  SubscriptionBilled: 1,
  SubscriptionBillingFailed: 1,
  SubscriptionEnded: 1,
  SubscriptionInvoiceBooked: 1,
  UsageEventCancelled: 1,
  SubscriptionDiscountApplied: 1,
  SubscriptionDiscountEnded: 1,
  SubscriptionTrialEndAnnounced: 1,
  SubscriptionTrialEnded: 1,
  SubscriptionChangeScheduled: 1,
  SubscriptionChangeDropped: 1,
  SubscriptionItemsChanged: 1,
};
const HANDLE_EVENTS: Record<SubscriptionHandleClaimed['type'], number> = { SubscriptionHandleClaimed: 1 };
const FIRST_SUBSCRIPTION_EVENTS: Record<CustomerFirstSubscriptionClaimed['type'], number> = { CustomerFirstSubscriptionClaimed: 1 };

const subscriptionStream: StreamDefinition<SubscriptionState, SubscriptionEvent> = {
  type: SUBSCRIPTION_STREAM,
  idScheme: 'the subscription id: a random uuid the service chooses (POST /subscriptions)',
  events: eventTypesOf(SUBSCRIPTION_EVENTS),
  view: { evolver: subscriptionEvolver, toView: subscriptionViewOf },
  resource: { type: 'subscription', path: 'subscriptions' },
  // The events log shows the payment method as the API does: the token only as its hint.
  publicData: (type, data) => {
    if (type !== 'SubscriptionCreated') return data;
    const created = data as SubscriptionCreatedData;
    return created.paymentMethod ? { ...created, paymentMethod: publicPaymentMethod(created.paymentMethod) } : data;
  },
};

const METRIC_EVENTS: Record<BillableMetricEvent['type'], number> = { BillableMetricCreated: 1 };
const SETTINGS_EVENTS: Record<UsageSettingsChanged['type'], number> = { UsageSettingsChanged: 1 };

const billableMetricStream: StreamDefinition<BillableMetricState, BillableMetricEvent> = {
  type: BILLABLE_METRIC_STREAM,
  idScheme: 'uuid v5 of (environment, metric code): a code is created once (billableMetricStream)',
  events: eventTypesOf(METRIC_EVENTS),
  view: { evolver: billableMetricEvolver, toView: (state) => (state.status === 'none' ? null : (({ status: _status, ...metric }) => metric)(state)) },
  resource: { type: 'billable_metric', path: 'billable-metrics', streamIdOf: (environmentId, code) => billableMetricStreamOf(environmentId, code).streamId },
};

const usageSettingsStream: StreamDefinition = {
  type: USAGE_SETTINGS_STREAM,
  idScheme: 'the environment id: one settings stream per environment',
  events: eventTypesOf(SETTINGS_EVENTS),
  resource: { type: 'usage_settings' },
};

const handleStream: StreamDefinition = {
  type: SUBSCRIPTION_HANDLE_STREAM,
  idScheme: 'uuid v5 of (environment, handle): a handle can be claimed once (subscriptionHandleStream)',
  events: eventTypesOf(HANDLE_EVENTS),
};

const firstSubscriptionStream: StreamDefinition = {
  type: CUSTOMER_FIRST_SUBSCRIPTION_STREAM,
  idScheme: 'uuid v5 of (environment, customer id): claimed by the first subscription of a customer record (customerFirstSubscriptionStream)',
  events: eventTypesOf(FIRST_SUBSCRIPTION_EVENTS),
};

/**
 * Notifications (public names, never renamed), each carrying the
 * subscription as of its event. The invoices the billing engine creates
 * announce themselves as invoice.created and invoice.booked.
 */
const notifications: NotificationDefinition[] = [
  { name: 'subscription.created', streamType: SUBSCRIPTION_STREAM, eventType: 'SubscriptionCreated', description: 'A subscription is created.' },
  {
    name: 'subscription.cancelled',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionCancelled',
    description: 'A subscription is cancelled: it ends at cancelAt.',
  },
  { name: 'subscription.reactivated', streamType: SUBSCRIPTION_STREAM, eventType: 'SubscriptionReactivated', description: 'A cancellation is undone.' },
  {
    name: 'subscription.paused',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionPaused',
    description: 'A subscription is paused: nothing is billed after the pause day until it resumes (at resumeAt, or by hand).',
  },
  {
    name: 'subscription.resumed',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionResumed',
    description: 'A paused subscription resumes (by hand, or at its resumeAt): billing goes on from the resume day.',
  },
  {
    name: 'subscription.renewed',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionRenewed',
    description: 'A termed subscription with autoRenewal starts its next term.',
  },
  {
    name: 'subscription.ended',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionEnded',
    description: 'A subscription ended after its final period was billed.',
  },
  {
    name: 'subscription.trial_will_end',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionTrialEndAnnounced',
    description: 'A trial ends in 3 days (by the environment’s clock; sent once, not when the subscription ends within its trial).',
  },
  {
    name: 'subscription.trial_ended',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionTrialEnded',
    description: 'A trial is over: at its end, or ended early (PUT /subscriptions/{id}/end-trial); billing starts with it.',
  },
  {
    name: 'subscription.updated',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionItemsChanged',
    description: 'A subscription’s items changed (POST /subscriptions/{id}/changes, or a scheduled change at its instant); `latestChange` holds the change.',
  },
  {
    name: 'subscription.discount_applied',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionDiscountApplied',
    description: 'A coupon (or promotion code) is redeemed on a subscription.',
  },
  {
    name: 'subscription.discount_ended',
    streamType: SUBSCRIPTION_STREAM,
    eventType: 'SubscriptionDiscountEnded',
    description: 'A discount of a subscription ends early (DELETE) or, duration once, is used by an invoice.',
  },
];

export const subscriptionsContext: BoundedContext = {
  name: 'subscriptions',
  module: SubscriptionsModule,
  migrations: subscriptionsMigrations,
  streams: [subscriptionStream, handleStream, firstSubscriptionStream, billableMetricStream, usageSettingsStream],
  projections: [subscriptionsProjection],
  reactors: [],
  notifications,
  problems: SUBSCRIPTIONS_PROBLEMS,
};
