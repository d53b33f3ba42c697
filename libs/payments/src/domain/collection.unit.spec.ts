import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import {
  CollectedInvoice,
  CollectionEvent,
  collectionEvolver,
  CollectionStopReason,
  collectionStopReason,
  decideRecordAttempt,
  hasNothingToPay,
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
/** The collected invoice: 25.00, booked; `paid` settlements of payment ids (null: a settlement by hand) paid on it. */
const invoice = (paid: Array<[number, string | null]> = [], more: Partial<CollectedInvoice> = {}): CollectedInvoice => ({
  status: 'booked',
  uncollectible: false,
  totalInclVat: 2500,
  settledAmount: paid.reduce((sum, [amount]) => sum + amount, 0),
  settlements: paid.map(([, paymentId]) => ({ paymentId })),
  ...more,
});
const OPEN = invoice();
const fail = (history: CollectionEvent[], paymentId: string, now: string, on: CollectedInvoice | null = OPEN): CollectionEvent[] => {
  const state = history.reduce(collectionEvolver.evolve, collectionEvolver.initialState());
  return decideRecordAttempt({ status: 'failed', paymentId, failureCode: 'insufficient_funds', retryable: true }, state, metadataAt(now), on);
};
const firstTry = [...started, ...attempt(started, 'pay-1', START)];
const retryDue = [...firstTry, ...fail(firstTry, 'pay-1', START)];
const stopped = (reason: CollectionStopReason, at = '2026-02-01T12:00:00.000Z'): CollectionEvent[] => [
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
      .when((state): CollectionEvent[] => decideStopCollection(invoice([], { status: 'void' }), state, metadataAt('2026-02-01T12:00:00.000Z')))
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
      .when((state) => decideStopCollection(invoice([], { uncollectible: true }), state, metadataAt(START)))
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
      .when((state) => decideRecordAttempt({ status: 'succeeded', paymentId: 'pay-1' }, state, metadataAt(START), OPEN))
      .then([]);
  });
});

describe('a collection whose invoice is settled otherwise (issue 41 #1)', () => {
  const AT = '2026-02-01T12:00:00.000Z';
  const paidByHand = invoice([[2500, null]]);

  it.each<[string, CollectionEvent[]]>([
    ['a retry due', retryDue],
    ['a try claimed whose payment was not made', firstTry],
  ])('given %s, when the invoice is settled by hand, then CollectionStopped invoice-settled and no try is due', (_, history) => {
    spec
      .given(history)
      .when((state): CollectionEvent[] => decideStopCollection(paidByHand, state, metadataAt(AT)))
      .then(stopped('invoice-settled'));
  });

  it.each<[string, CollectedInvoice]>([
    ['a payment of another method', invoice([[2500, 'pay-other']])],
    ['a settlement by hand', paidByHand],
    [
      'a credit note or the credit balance, over-settling it',
      invoice([
        [1000, null],
        [2000, null],
      ]),
    ],
    ['a void', invoice([], { status: 'void' })],
  ])('given a try claimed, when its payment failed after %s, then the collection stops: no failure, nothing follows', (_, settled) => {
    const lastTry = [...retryDue, ...attempt(retryDue, 'pay-2', '2026-02-02T00:00:00.000Z')];
    const events = fail(lastTry, 'pay-2', '2026-02-02T00:00:00.000Z', settled);
    expect(events.map((event) => event.type)).toEqual(['CollectionStopped']);
    expect(events[0].data).toMatchObject({ reason: settled.status === 'void' ? 'invoice-void' : 'invoice-settled' });
  });

  it('given a try claimed, when its payment was refused for an invoice that does not exist, then the failure is recorded (nothing to stop on)', () => {
    const lastTry = [...retryDue, ...attempt(retryDue, 'pay-2', '2026-02-02T00:00:00.000Z')];
    expect(fail(lastTry, 'pay-2', '2026-02-02T00:00:00.000Z', null).map((event) => event.type)).toEqual(['CollectionAttemptFailed', 'CollectionFailed']);
  });

  it('given a try claimed, when its own payment settled the invoice, then no stop: the success is recorded', () => {
    const settledByTheTry = invoice([[2500, 'pay-1']]);
    spec
      .given(firstTry)
      .when((state) => decideStopCollection(settledByTheTry, state, metadataAt(AT)))
      .then([]);
    spec
      .given(firstTry)
      .when((state) => decideRecordAttempt({ status: 'succeeded', paymentId: 'pay-1' }, state, metadataAt(AT), settledByTheTry))
      .then([{ type: 'CollectionSucceeded', schemaVersion: 1, data: { invoiceId: 'inv-1', paymentId: 'pay-1', succeededAt: AT } }]);
  });

  it('given a retry due, when the invoice is partly paid, then the collection goes on, and its last failed try gives up', () => {
    const partlyPaid = invoice([[1000, null]]);
    spec
      .given(retryDue)
      .when((state) => decideStopCollection(partlyPaid, state, metadataAt(AT)))
      .then([]);
    const lastTry = [...retryDue, ...attempt(retryDue, 'pay-2', '2026-02-02T00:00:00.000Z')];
    expect(fail(lastTry, 'pay-2', '2026-02-02T00:00:00.000Z', partlyPaid).map((event) => event.type)).toEqual(['CollectionAttemptFailed', 'CollectionFailed']);
  });
});

describe('collectionStopReason', () => {
  it.each<[string, CollectedInvoice, string | null, string | null]>([
    ['a void invoice', invoice([], { status: 'void' }), null, 'invoice-void'],
    ['an uncollectible invoice', invoice([], { uncollectible: true }), null, 'invoice-uncollectible'],
    ['a booked invoice', OPEN, null, null],
    ['a booked invoice stored before the mark existed', invoice([], { uncollectible: undefined }), null, null],
    ['a partly paid invoice', invoice([[2499, null]]), null, null],
    ['an invoice settled by hand', invoice([[2500, null]]), 'pay-1', 'invoice-settled'],
    ['an invoice settled by the claimed try', invoice([[2500, 'pay-1']]), 'pay-1', null],
    ['an over-settled invoice', invoice([[3000, 'pay-9']]), null, 'invoice-settled'],
  ])('%s: %p', (_, collected, ownPaymentId, reason) => {
    expect(collectionStopReason(collected, ownPaymentId)).toBe(reason);
  });
});

describe('hasNothingToPay (what follows a failed collection is skipped for an invoice paid or voided since)', () => {
  it.each<[string, CollectedInvoice, boolean]>([
    ['an open invoice', OPEN, false],
    ['a partly paid one', invoice([[1000, null]]), false],
    ['an uncollectible one', invoice([], { uncollectible: true }), false],
    ['a settled one', invoice([[2500, 'pay-9']]), true],
    ['an over-settled one', invoice([[2600, null]]), true],
    ['a void one', invoice([], { status: 'void' }), true],
  ])('%s', (_, collected, nothing) => {
    expect(hasNothingToPay(collected)).toBe(nothing);
  });
});
