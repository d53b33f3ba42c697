import * as analytics from '@billing/analytics';
import * as catalog from '@billing/catalog';
import * as coupons from '@billing/coupons';
import * as email from '@billing/email';
import * as invoicing from '@billing/invoicing';
import * as payments from '@billing/payments';
import * as subscriptions from '@billing/subscriptions';
import * as templates from '@billing/templates';
import * as webhooks from '@billing/webhooks';
import { Decider, Evolver } from '@billing/shared-kernel';

/**
 * "Every aggregate exports one Decider" (shared-kernel's Decider): each evolver a context publishes as `<name>Evolver`
 * comes with `<name>Decider`, which folds with that very evolver. The folds below decide otherwise, for the reason given.
 */
const NOT_AGGREGATES: Readonly<Record<string, string>> = {
  firstSubscriptionClaimEvolver: 'its decider answers whether the claim was the first as well as the events (decideClaimFirstSubscription)',
  customerHandleEvolver: "a customer's handle claim is decided with the handle and the customer apart (decideClaimCustomerHandle)",
};

const contexts = { analytics, catalog, coupons, email, invoicing, payments, subscriptions, templates, webhooks };
const exports = Object.entries(contexts).flatMap(([context, members]) =>
  Object.entries(members as Record<string, unknown>).map(([name, value]) => ({ context, name, value })),
);
const isEvolver = (value: unknown): value is Evolver<unknown, never> =>
  typeof value === 'object' && value !== null && typeof (value as Evolver<unknown, never>).evolve === 'function';
const evolvers = exports.filter(({ name, value }) => name.endsWith('Evolver') && isEvolver(value));

describe('Deciders', () => {
  it('finds the evolvers (a renamed export must not empty this check)', () => {
    expect(evolvers.length).toBeGreaterThan(20);
  });

  it.each(
    evolvers
      .filter(({ name }) => !(name in NOT_AGGREGATES))
      .map(({ context, name, value }) => [`${context}: ${name}`, name, value as Evolver<unknown, never>] as const),
  )('%s comes with its Decider', (_label, name, evolver) => {
    const decider = exports.find((candidate) => candidate.name === name.replace(/Evolver$/, 'Decider'))?.value as Decider<unknown, never, never> | undefined;
    expect(decider).toBeDefined();
    expect(typeof decider!.decide).toBe('function');
    expect(decider!.evolve).toBe(evolver.evolve);
    expect(decider!.initialState()).toEqual(evolver.initialState());
  });
});
