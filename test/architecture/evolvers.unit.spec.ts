import * as analytics from '@billing/analytics';
import * as catalog from '@billing/catalog';
import * as coupons from '@billing/coupons';
import * as email from '@billing/email';
import * as invoicing from '@billing/invoicing';
import * as payments from '@billing/payments';
import * as subscriptions from '@billing/subscriptions';
import * as templates from '@billing/templates';
import * as webhooks from '@billing/webhooks';
import { Evolver } from '@billing/shared-kernel';

/**
 * "An evolver answers the state unchanged for an event type it does not know" (shared-kernel's Evolver): a stream
 * read by older code, or an event another release added, must never become the state. Checked on every evolver a
 * context publishes (each context's index, and the views its streams declare), from its initial state.
 */
const contexts = { analytics, catalog, coupons, email, invoicing, payments, subscriptions, templates, webhooks };

function isEvolver(value: unknown): value is Evolver<unknown, never> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Evolver<unknown, never>).initialState === 'function' &&
    typeof (value as Evolver<unknown, never>).evolve === 'function'
  );
}

const published = Object.entries(contexts).flatMap(([context, exports]) =>
  Object.entries(exports as Record<string, unknown>)
    .filter(([, value]) => isEvolver(value))
    .map(([name, value]) => [`${context}: ${name}`, value as Evolver<unknown, never>] as const),
);
const declared = Object.values(contexts).flatMap((exports) =>
  Object.values(exports as Record<string, unknown>)
    .filter((value): value is { streams: readonly { type: string; view?: { evolver: Evolver<unknown, never> } }[] } =>
      Array.isArray((value as { streams?: unknown } | null)?.streams),
    )
    .flatMap((context) => context.streams.flatMap((stream) => (stream.view ? [[`the ${stream.type} stream's view`, stream.view.evolver] as const] : []))),
);

describe('Evolvers and an event type they do not know', () => {
  const unknownEvent = { type: 'SomethingFromANewerRelease', schemaVersion: 1, data: { id: 'x', status: 'active', paymentId: 'p' } } as never;

  it('finds the evolvers (a renamed export must not empty this check)', () => {
    expect(published.length).toBeGreaterThan(15);
    expect(declared.length).toBeGreaterThan(5);
  });

  it.each([...published, ...declared])('%s: the initial state stays as it was', (_name, evolver) => {
    const initial = evolver.initialState();
    expect(evolver.evolve(initial, unknownEvent)).toEqual(initial);
  });
});
