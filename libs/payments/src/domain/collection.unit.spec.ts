import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import {
  CollectionEvent,
  collectionEvolver,
  collectionStopReason,
  decideRecordAttempt,
  decideStartAttempt,
  decideStartCollection,
  decideStopCollection,
} from './collection';

const spec = deciderSpec(collectionEvolver);
const START = '2026-02-01T00:00:00.000Z';
const start = { invoiceId: 'inv-1', subscriptionId: 'sub-1', provider: 'sandbox', token: 'tok', retryDays: [1] };
const started = decideStartCollection({ ...start, afterLastFailure: 'cancel_subscription' }, collectionEvolver.initialState(), metadataAt(START));
const attempt = (history: CollectionEvent[], paymentId: string, now: string): CollectionEvent[] => {
  const state = history.reduce(collectionEvolver.evolve, collectionEvolver.initialState());
  return decideStartAttempt({ paymentId }, state, metadataAt(now));
};
const fail = (history: CollectionEvent[], paymentId: string, now: string): CollectionEvent[] => {
  const state = history.reduce(collectionEvolver.evolve, collectionEvolver.initialState());
  return decideRecordAttempt({ status: 'failed', paymentId, failureCode: 'insufficient_funds', retryable: true }, state, metadataAt(now));
};
const firstTry = [...started, ...attempt(started, 'pay-1', START)];
const retryDue = [...firstTry, ...fail(firstTry, 'pay-1', START)];
const stopped = (reason: 'invoice-void' | 'invoice-uncollectible', at = '2026-02-01T12:00:00.000Z'): CollectionEvent[] => [
  { type: 'CollectionStopped', schemaVersion: 1, data: { invoiceId: 'inv-1', reason, stoppedAt: at } },
];

describe('a collection and the environment’s afterLastFailure', () => {
  it('given none, when it starts, then it keeps the setting in force; one started before the setting existed leaves the invoice open', () => {
    expect(started[0].data).toMatchObject({ afterLastFailure: 'cancel_subscription' });
    const older = decideStartCollection(start, collectionEvolver.initialState(), metadataAt(START));
    expect(older.reduce(collectionEvolver.evolve, collectionEvolver.initialState())).toMatchObject({ afterLastFailure: 'leave_open' });
  });

  it('given its last try claimed, when it fails, then CollectionFailed carries what follows', () => {
    const lastTry = [...retryDue, ...attempt(retryDue, 'pay-2', '2026-02-02T00:00:00.000Z')];
    const events = fail(lastTry, 'pay-2', '2026-02-02T00:00:00.000Z');
    expect(events.map((event) => event.type)).toEqual(['CollectionAttemptFailed', 'CollectionFailed']);
    expect(events[1].data).toMatchObject({
      invoiceId: 'inv-1',
      subscriptionId: 'sub-1',
      reason: 'schedule-exhausted',
      afterLastFailure: 'cancel_subscription',
    });
  });
});

describe('decideStopCollection', () => {
  it.each<[string, CollectionEvent[]]>([
    ['a retry due', retryDue],
    ['a try claimed', firstTry],
  ])('given %s, when the invoice is voided, then CollectionStopped and no try is due', (_, history) => {
    spec
      .given(history)
      .when((state): CollectionEvent[] => decideStopCollection({ reason: 'invoice-void' }, state, metadataAt('2026-02-01T12:00:00.000Z')))
      .then(stopped('invoice-void'));
    const state = [...history, ...stopped('invoice-void')].reduce(collectionEvolver.evolve, collectionEvolver.initialState());
    expect(state).toMatchObject({ status: 'stopped', nextAttemptAt: null, paymentId: null });
  });

  it.each<[string, CollectionEvent[]]>([
    ['no collection', []],
    ['a stopped collection', [...retryDue, ...stopped('invoice-uncollectible')]],
    [
      'a succeeded collection',
      [...firstTry, { type: 'CollectionSucceeded', schemaVersion: 1, data: { invoiceId: 'inv-1', paymentId: 'pay-1', succeededAt: START } }],
    ],
  ])('given %s, when the invoice is marked uncollectible, then nothing is recorded', (_, history) => {
    spec
      .given(history)
      .when((state) => decideStopCollection({ reason: 'invoice-uncollectible' }, state, metadataAt(START)))
      .then([]);
  });

  it('given a stopped collection, then no try can be claimed and a late outcome records nothing', () => {
    const history = [...firstTry, ...stopped('invoice-void')];
    spec
      .given(history)
      .when((state) => decideStartAttempt({ paymentId: 'pay-9' }, state, metadataAt('2026-03-01T00:00:00.000Z')))
      .thenThrows({ code: 'collection-not-due' });
    spec
      .given(history)
      .when((state) => decideRecordAttempt({ status: 'succeeded', paymentId: 'pay-1' }, state, metadataAt(START)))
      .then([]);
  });
});

describe('collectionStopReason', () => {
  it.each<[string, { status: string; uncollectible?: boolean }, string | null]>([
    ['a void invoice', { status: 'void', uncollectible: false }, 'invoice-void'],
    ['an uncollectible invoice', { status: 'booked', uncollectible: true }, 'invoice-uncollectible'],
    ['a booked invoice', { status: 'booked', uncollectible: false }, null],
    ['a booked invoice stored before the mark existed', { status: 'booked' }, null],
  ])('%s: %p', (_, invoice, reason) => {
    expect(collectionStopReason(invoice)).toBe(reason);
  });
});
