import { ProblemType } from '@billing/platform';

/** The subscriptions context's problem types (served at /problems/<code>). */
export const SUBSCRIPTIONS_PROBLEMS: Record<string, ProblemType> = {
  'subscription-exists': { status: 409, title: 'Conflict', description: 'A subscription with this id already exists.' },
  'subscription-handle-taken': {
    status: 409,
    title: 'Conflict',
    description: 'Another subscription of the environment has this handle; handles are unique per environment.',
  },
  'subscription-ended': {
    status: 409,
    title: 'Conflict',
    description: 'The subscription has ended (its last day of service has passed): it can no longer be cancelled or reactivated.',
  },
  'discount-ended': { status: 409, title: 'Conflict', description: 'The discount has ended already (used, or ended early).' },
  'subscription-not-trialing': {
    status: 409,
    title: 'Conflict',
    description: 'The subscription has no running trial (none, or it is over): its trial cannot be ended (README: Trials).',
  },
  'subscription-billing-pending': {
    status: 409,
    title: 'Conflict',
    description:
      'Billing due by now (a charge, renewal or end) is still to be booked by the billing engine, or the engine booked billing later than the request’s time while the request ran (the clock moved on): a cancel now, a pause or a change of items bills what comes after it; try again shortly.',
  },
  'subscription-change-pending': {
    status: 409,
    title: 'Conflict',
    description:
      'The subscription has a scheduled change of items: drop it (DELETE /subscriptions/{id}/changes/{changeId}) before making another (README: Changing items).',
  },
  'subscription-paused': {
    status: 409,
    title: 'Conflict',
    description: 'The subscription is paused already: resume it first (README: Pause and resume).',
  },
  'subscription-not-paused': { status: 409, title: 'Conflict', description: 'Only a paused subscription can be resumed (README: Pause and resume).' },
  'subscription-trialing': {
    status: 409,
    title: 'Conflict',
    description: 'The subscription is in its free trial, which bills nothing: it cannot be paused (end the trial or cancel instead; README: Pause and resume).',
  },
  'subscription-not-cancelled': { status: 409, title: 'Conflict', description: 'Only a cancelled subscription can be reactivated.' },
  'subscription-period-billed': {
    status: 409,
    title: 'Conflict',
    description: 'The charges due at this instant have been billed already (the billing engine never bills them twice).',
  },
  'billable-metric-exists': {
    status: 409,
    title: 'Conflict',
    description: 'A billable metric with this code exists already in the environment (codes are unique, metrics never change).',
  },
  'usage-event-billed': {
    status: 409,
    title: 'Conflict',
    description: "The usage event's period has been billed on a booked invoice: the event can no longer be cancelled (a booked invoice never changes).",
  },
  'no-upcoming-invoice': {
    status: 409,
    title: 'Conflict',
    description:
      'The subscription has nothing left to bill (ended, or ending without another invoice): there is no upcoming invoice (README: Invoice preview).',
  },
  'subscription-billing-not-due': { status: 409, title: 'Conflict', description: 'Nothing is due for billing at this instant.' },
};
