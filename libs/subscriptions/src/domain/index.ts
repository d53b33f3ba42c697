/** The pure subscriptions domain: the billing calendar, time zones, the Subscription aggregate and its billing. */
export * from './calendar';
export * from './time-zone';
export * from './periods';
export * from './subscription-events';
export * from './subscription';
export * from './subscription-commands';
export * from './subscription-decisions';
export * from './billing';
export * from './pause';
export * from './usage';
export * from './billable-metric';
export * from './invoice-composition';
export * from './discounts';
export * from './handle-claim';
export * from './changes';
export * from './proration-behavior';
export * from './first-subscription-claim';
