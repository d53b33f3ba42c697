/**
 * How a change of items treats the rest of the current period (README: Changing items):
 * create_prorations — credit and charge lines wait for the next invoice; always_invoice — they are booked
 * at once on an invoice of their own; none — no proration, the new price applies from the next period.
 */
export const PRORATION_BEHAVIORS = ['create_prorations', 'always_invoice', 'none'] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];
