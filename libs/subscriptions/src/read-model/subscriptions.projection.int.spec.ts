import { randomUUID } from 'node:crypto';
import { PRICE_STREAM_TYPE, PriceEvent, priceEvolver, PriceUpdated } from '@billing/catalog';
import { foldEvents } from '@billing/shared-kernel';
import { metadataAt } from '@billing/testing';
import { priceCreated as aPriceCreated } from '@billing/testing/price-events';
import { append, projectionSpec } from '@billing/testing/projection-spec';
import {
  decideCancelSubscription,
  decideClaimHandle,
  decideCreateSubscription,
  handleClaimEvolver,
  nextWorkAt,
  SubscriptionEvent,
  subscriptionEvolver,
} from '../domain';
import { priceFacts } from '../domain/subscription.arbitraries';
import { subscriptionHandleStream, subscriptionStream } from '../streams';
import { subscriptionsProjection } from './subscriptions.projection';

/** The `subscriptions.read-model` projection on real Postgres: subscriptions (real deciders) and the catalog's price events, then rows. */
const spec = projectionSpec(subscriptionsProjection);
const CREATED = '2026-01-10T09:00:00.000Z';
const CANCELLED = '2026-02-14T12:00:00.000Z';
const subscriptions = `select id, handle, status, customer_id, created_at, version, state, next_work_at from subscriptions where environment_id = $1`;
const versions = `select price_id, version, effective_at, pricing from subscription_price_versions where environment_id = $1 order by version`;

const create = (subscriptionId: string) =>
  decideCreateSubscription(
    {
      subscriptionId,
      handle: 'sub-0001',
      customer: { id: 'cust-1', name: 'Acme' },
      currency: 'EUR',
      term: { start: '2026-01-31' },
      timeZone: 'Europe/Helsinki',
      items: [{ priceId: 'price-monthly', price: priceFacts(), quantity: 2 }],
    },
    subscriptionEvolver.initialState(),
    metadataAt(CREATED),
  );
/** The row a subscription whose stream holds `events` must have. */
const row = (id: string, events: readonly SubscriptionEvent[]) => {
  const state = foldEvents(subscriptionEvolver, events);
  if (state.status === 'none') throw new Error('no subscription');
  return {
    id,
    handle: 'sub-0001',
    status: state.status,
    customer_id: 'cust-1',
    created_at: new Date(CREATED),
    version: events.length,
    state,
    next_work_at: nextWorkAt(state),
  };
};

const priceCreated = (priceId: string) => aPriceCreated(priceId, CREATED);
const priceUpdated = (priceId: string, changes: Omit<PriceUpdated['data'], 'priceId' | 'updatedAt'>): PriceUpdated => ({
  type: 'PriceUpdated',
  schemaVersion: 1,
  data: { priceId, ...changes, updatedAt: CANCELLED },
});

describe('subscriptions.read-model projection (Postgres)', () => {
  it('given a subscription created, then one row: handle, status, customer, the fold and when the engine first has work for it', async () => {
    const env = randomUUID();
    const id = randomUUID();
    await spec.given(append(subscriptionStream(env, id), create(id))).then(async (query) => {
      const expected = row(id, create(id));
      expect(await query(subscriptions, [env])).toEqual([expected]);
      expect(expected.next_work_at).toBeInstanceOf(Date);
    });
  });

  it('given a subscription, when it is cancelled in a later batch, then the row continues the stored fold at version 2', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const cancelled = decideCancelSubscription({ subscriptionId: id }, foldEvents(subscriptionEvolver, create(id)), metadataAt(CANCELLED));
    await spec
      .given(append(subscriptionStream(env, id), create(id)))
      .when(append(subscriptionStream(env, id), cancelled, CANCELLED))
      .then(async (query) => {
        const expected = row(id, [...create(id), ...cancelled]);
        expect(await query(subscriptions, [env])).toEqual([expected]);
        expect(expected.state).toMatchObject({ cancelAt: expect.any(String) });
      });
  });

  it('given a catalog price created and updated, then its folded state as a fact and one price version per change of its pricing', async () => {
    const env = randomUUID();
    const priceId = randomUUID();
    const history: PriceEvent[] = [
      priceCreated(priceId),
      priceUpdated(priceId, { name: 'renamed' }),
      priceUpdated(priceId, { pricing: { eur: { unitAmount: 1700 } } }),
    ];
    await spec.given(append({ environmentId: env, streamType: PRICE_STREAM_TYPE, streamId: priceId }, history)).then(async (query) => {
      expect(await query(`select id, state from subscription_catalog_prices where environment_id = $1`, [env])).toEqual([
        { id: priceId, state: foldEvents(priceEvolver, history) },
      ]);
      expect(await query(versions, [env])).toEqual([
        { price_id: priceId, version: 1, effective_at: new Date(CREATED), pricing: { eur: { unitAmount: 1500 } } },
        { price_id: priceId, version: 3, effective_at: new Date(CANCELLED), pricing: { eur: { unitAmount: 1700 } } },
      ]);
    });
  });

  it('given the same batch of price events applied twice (it claims idempotence), then the same price versions, once each', async () => {
    const env = randomUUID();
    const priceId = randomUUID();
    const history = [priceCreated(priceId), priceUpdated(priceId, { pricing: { eur: { unitAmount: 900 } } })];
    await spec
      .given(append({ environmentId: env, streamType: PRICE_STREAM_TYPE, streamId: priceId }, history))
      .twice()
      .thenRows(
        `select version, pricing from subscription_price_versions where environment_id = $1 order by version`,
        [env],
        [
          { version: 1, pricing: { eur: { unitAmount: 1500 } } },
          { version: 2, pricing: { eur: { unitAmount: 900 } } },
        ],
      );
  });

  it('ignores the handle’s claim stream (subscription-handle): no subscription row', async () => {
    const env = randomUUID();
    const claimed = decideClaimHandle({ handle: 'sub-0001', subscriptionId: randomUUID() }, handleClaimEvolver.initialState());
    await spec.given(append(subscriptionHandleStream(env, 'sub-0001'), claimed)).thenRows(subscriptions, [env], []);
  });
});
