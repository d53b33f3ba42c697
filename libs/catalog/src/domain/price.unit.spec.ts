import fc from 'fast-check';
import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { deciderSpec } from '@billing/testing/decider-spec';
import { createPriceBodyArb, updatePriceBodyArb } from '../../../../test/catalog/catalog.arbitraries';
import { priceViewOf, toPriceView } from '../views';
import {
  PriceArchived,
  PriceCreated,
  PriceEvent,
  PriceUpdated,
  decideArchivePrice,
  decideCreatePrice,
  decideUpdatePrice,
  evolvePrice,
  existingPrice,
  initialPriceState,
  priceEvolver,
} from './price';
import { CreatePriceInput, validateCreatePrice, validateUpdatePrice } from './price-validation';

const priceId = '7d0c3a52-6a1e-4c1b-9f55-2f3c4a5b6c7d';
const productId = '0b6e1c9a-3f4d-4e2a-8b7c-1d2e3f4a5b6c';
const T0 = '2024-07-01T10:00:00.000Z';
const T1 = '2024-07-02T11:30:00.000Z';
const T2 = '2024-07-03T09:15:00.000Z';
const meta = (iso: string): CommandMetadata => ({
  now: new Date(iso),
  newId: () => {
    throw new Error('the price deciders take ids from the command');
  },
});

const body = {
  name: 'Pro monthly',
  priceModel: 'graduated',
  purchase: 'recurring',
  termCount: 1,
  termUnit: 'month',
  pricing: {
    eur: {
      tiers: [
        { upTo: 10, unitAmount: 500 },
        { upTo: null, unitAmount: 400, flatAmount: 100 },
      ],
    },
  },
};
const input = validateCreatePrice(body);

const created: PriceCreated = {
  type: 'PriceCreated',
  schemaVersion: 1,
  data: {
    priceId,
    name: 'Pro monthly',
    description: null,
    priceModel: 'graduated',
    purchase: 'recurring',
    termCount: 1,
    termUnit: 'month',
    billingTiming: 'advance',
    pricing: {
      eur: {
        tiers: [
          { upTo: 10, unitAmount: 500, flatAmount: 0 },
          { upTo: null, unitAmount: 400, flatAmount: 100 },
        ],
      },
    },
    productId: null,
    createdAt: T0,
  },
};
const updated = (data: Omit<PriceUpdated['data'], 'priceId' | 'updatedAt'>, at = T1): PriceUpdated => ({
  type: 'PriceUpdated',
  schemaVersion: 1,
  data: { priceId, ...data, updatedAt: at },
});
const archived: PriceArchived = { type: 'PriceArchived', schemaVersion: 1, data: { priceId, archivedAt: T1 } };

const spec = deciderSpec(priceEvolver);
const stateAfter = (...events: PriceEvent[]) => foldEvents(priceEvolver, events);
const active = existingPrice(stateAfter(created), priceId);

describe('decideCreatePrice', () => {
  const create =
    (overrides: Partial<CreatePriceInput> = {}, productExists = false, metricExists = false) =>
    (state: ReturnType<typeof stateAfter>) =>
      decideCreatePrice({ priceId, input: { ...input, ...overrides }, productExists, metricExists }, state, meta(T0));

  it('given no price, when created with a validated input, then PriceCreated carries the input, the id and the time', () => {
    spec.given([]).when(create()).then([created]);
  });

  it('given no price, when created for a product of the environment, then the event names the product', () => {
    spec
      .given([])
      .when(create({ productId }, true))
      .then([{ ...created, data: { ...created.data, productId } }]);
  });

  it('given no price, when created for a product that does not exist here, then 422 at /productId', () => {
    spec
      .given([])
      .when(create({ productId }, false))
      .thenThrows({
        kind: 'validation',
        code: 'validation-failed',
        errors: [{ pointer: '/productId', detail: `no product ${productId} exists in this environment` }],
      });
  });

  const eventBased = { billingTiming: 'event_based' as const, metricCode: 'api_calls' };

  it('issue 20 #11: given no price, when an event_based price names a billable metric that does not exist here, then 422 at /metricCode', () => {
    spec
      .given([])
      .when(create(eventBased, false, false))
      .thenThrows({
        kind: 'validation',
        code: 'validation-failed',
        errors: [{ pointer: '/metricCode', detail: "no billable metric 'api_calls' exists in this environment" }],
      });
  });

  it('given no price, when an event_based price names a billable metric of the environment, then PriceCreated names the metric', () => {
    spec
      .given([])
      .when(create(eventBased, false, true))
      .then([{ ...created, data: { ...created.data, ...eventBased } }]);
  });

  it.each<[string, PriceEvent[]]>([
    ['an active', [created]],
    ['an archived', [created, archived]],
  ])('given %s price, when created again, then 409 price-exists', (_, history) => {
    spec.given(history).when(create()).thenThrows({ kind: 'conflict', code: 'price-exists' });
  });
});

describe('decideUpdatePrice', () => {
  const update =
    (changes: unknown, at = T1) =>
    (state: ReturnType<typeof stateAfter>) =>
      decideUpdatePrice({ priceId, body: changes }, state, meta(at));

  it('given no price, when updated, then 404', () => {
    spec
      .given([])
      .when(update({ name: 'x' }))
      .thenThrows({ kind: 'not_found', code: 'not-found' });
  });

  it.each([[{ name: 'x' }], [{ name: '' }], ['not an object']])(
    'given an archived price, when updated with %p, then 409 price-archived (before the body is validated)',
    (changes) => {
      spec.given([created, archived]).when(update(changes)).thenThrows({ kind: 'conflict', code: 'price-archived' });
    },
  );

  it('given an active price, when an invalid update is sent, then 422 with every field error', () => {
    spec
      .given([created])
      .when(update({ priceModel: 'fee', name: '' }))
      .thenThrows({
        kind: 'validation',
        errors: [
          { pointer: '/priceModel', detail: 'cannot be changed after the price is created' },
          { pointer: '/name', detail: 'must be 1 to 250 characters long' },
        ],
      });
  });

  it('given an active price, when fields change, then PriceUpdated holds only the changed fields and the time', () => {
    spec
      .given([created])
      .when(update({ name: 'Pro', termCount: 1, description: 'note' }))
      .then([updated({ name: 'Pro', description: 'note' })]);
  });

  it('given an active price, when the pricing changes, then the new (normalised) pricing is in the event', () => {
    spec
      .given([created])
      .when(update({ pricing: { dkk: { tiers: [{ upTo: null, unitAmount: 1 }] } } }))
      .then([updated({ pricing: { dkk: { tiers: [{ upTo: null, unitAmount: 1, flatAmount: 0 }] } } })]);
  });

  it.each([
    ['an empty body', {}],
    ['the same values', { name: 'Pro monthly', termCount: 1, description: null, pricing: body.pricing }],
  ])('given an active price, when %s is sent, then no event (nothing changed)', (_, changes) => {
    spec.given([created]).when(update(changes)).then([]);
  });

  it('given state whose pricing keys were reordered (as jsonb does), when the same pricing is sent, then no event', () => {
    const reordered = JSON.parse('{"eur":{"tiers":[{"upTo":10,"flatAmount":0,"unitAmount":500},{"upTo":null,"flatAmount":100,"unitAmount":400}]}}');
    spec
      .given([{ ...created, data: { ...created.data, pricing: reordered } }])
      .when(update({ pricing: body.pricing }))
      .then([]);
  });

  it('given a price with a description, when description is null, then it is cleared', () => {
    spec
      .given([created, updated({ description: 'note' })])
      .when(update({ description: null }, T2))
      .then([updated({ description: null }, T2)]);
    expect(toPriceView(existingPrice(stateAfter(created, updated({ description: 'note' }), updated({ description: null }, T2)), priceId))).not.toHaveProperty(
      'description',
    );
  });
});

describe('decideArchivePrice', () => {
  const archive = (state: ReturnType<typeof stateAfter>) => decideArchivePrice({ priceId }, state, meta(T1));

  it('given no price, when archived, then 404', () => {
    spec.given([]).when(archive).thenThrows({ kind: 'not_found', code: 'not-found' });
  });

  it('given an active price, when archived, then PriceArchived with the time', () => {
    spec.given([created]).when(archive).then([archived]);
  });

  it('given an updated price, when archived, then PriceArchived', () => {
    spec
      .given([created, updated({ name: 'New' })])
      .when(archive)
      .then([archived]);
  });

  it('given an archived price, when archived again, then 409 price-archived', () => {
    spec.given([created, archived]).when(archive).thenThrows({ kind: 'conflict', code: 'price-archived' });
  });
});

describe('existingPrice', () => {
  it('is the price, or 404 while it does not exist', () => {
    expect(existingPrice(stateAfter(created), priceId)).toEqual(active);
    expect(() => existingPrice(initialPriceState(), priceId)).toThrow(expect.objectContaining({ code: 'not-found', kind: 'not_found' }));
  });
});

describe('evolvePrice', () => {
  it('given no events, then there is no price', () => {
    expect(stateAfter()).toEqual({ status: 'none' });
  });

  it('given PriceCreated, then the price is active with updatedAt = createdAt', () => {
    expect(active).toMatchObject({ status: 'active', id: priceId, name: 'Pro monthly', createdAt: T0, updatedAt: T0, archivedAt: null });
  });

  it('given PriceUpdated, then only the changed fields and updatedAt change', () => {
    expect(stateAfter(created, updated({ name: 'New' }))).toEqual({ ...active, name: 'New', updatedAt: T1 });
  });

  it('given PriceArchived, then the price is archived at that time', () => {
    expect(stateAfter(created, archived)).toMatchObject({ status: 'archived', archivedAt: T1, updatedAt: T1 });
  });

  it('given events that do not fit the state, then they are ignored', () => {
    expect(stateAfter(updated({ name: 'x' }), archived)).toEqual({ status: 'none' });
    expect(stateAfter(created, { ...created, data: { ...created.data, name: 'again' } })).toEqual(active);
  });

  it('given an unknown event type, then the state is unchanged', () => {
    expect(evolvePrice(active, { type: 'PriceRenamed', schemaVersion: 1, data: {} } as unknown as PriceEvent)).toBe(active);
  });
});

describe('price properties', () => {
  const scenario = createPriceBodyArb.chain((createBody) =>
    fc.tuple(fc.constant(createBody), updatePriceBodyArb(createBody.priceModel, createBody.purchase === 'recurring')),
  );
  const view = (events: PriceEvent[]) => priceViewOf(stateAfter(...events));

  it('create then update folds to the created view with the update applied; repeating the update emits nothing', () => {
    fc.assert(
      fc.property(scenario, ([createBody, updateBody]) => {
        const createdEvents = decideCreatePrice(
          { priceId, input: validateCreatePrice(createBody), productExists: true, metricExists: true },
          initialPriceState(),
          meta(T0),
        );
        const before = view(createdEvents)!;
        const updatedEvents = decideUpdatePrice({ priceId, body: updateBody }, stateAfter(...createdEvents), meta(T1));
        const after = stateAfter(...createdEvents, ...updatedEvents);
        // validation itself is tested elsewhere; here it only normalizes the expected values
        // (a description cleared with null is omitted from the view, never null)
        const merged: Record<string, unknown> = { ...before, ...validateUpdatePrice(updateBody, before) };
        const expected = Object.fromEntries(Object.entries(merged).filter(([key, value]) => !(key === 'description' && value === null)));
        expect(priceViewOf(after)).toEqual({ ...expected, updatedAt: updatedEvents.length ? T1 : T0 });
        expect(decideUpdatePrice({ priceId, body: updateBody }, after, meta(T2))).toEqual([]);
      }),
    );
  });

  it('the view is a pure function of the events: it never reads the clock', () => {
    fc.assert(
      fc.property(createPriceBodyArb, (createBody) => {
        const events = decideCreatePrice(
          { priceId, input: validateCreatePrice(createBody), productExists: true, metricExists: true },
          initialPriceState(),
          meta(T0),
        );
        expect(view(events)).toEqual(view(events));
        expect(view(events)?.createdAt).toBe(T0);
      }),
    );
  });
});
