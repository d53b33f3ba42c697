import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { decideBillDue, decideRecordBillingFailure } from './billing-decisions';
import { nextDue, nextWorkAt, retryDue } from './billing';
import { SubscriptionBilled, SubscriptionBillingFailed, SubscriptionCancelled, SubscriptionEnded, SubscriptionEvent } from './subscription-events';
import { Subscription, SubscriptionState, subscriptionEvolver } from './subscription';
import { MONTHLY_ADVANCE, ONE_TIME, SUBSCRIPTION_ID, created, item } from './subscription.arbitraries';

/**
 * A failed attempt to bill the next due charges: when it is recorded, how
 * the retry backs off (1 min, doubling, at most a day), that billing clears
 * it, and when the billing engine next has work for the subscription.
 */

const spec = deciderSpec(subscriptionEvolver);
const stateOf = (...events: SubscriptionEvent[]): SubscriptionState => foldEvents(subscriptionEvolver, events);
const at = (iso: string, ms = 0) => new Date(Date.parse(iso) + ms).toISOString();

const MINUTE = 60_000;
const DAY = 86_400_000;
const JAN31 = '2026-01-31T00:00:00.000Z';
const FEB28 = '2026-02-28T00:00:00.000Z';

const failed = (billAt: string, attempts: number, failedAt: string, retryAt: string, reason = 'no pricing in EUR'): SubscriptionBillingFailed => ({
  type: 'SubscriptionBillingFailed',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, billAt, reason, attempts, retryAt, failedAt },
});
const billedJan31: SubscriptionBilled = {
  type: 'SubscriptionBilled',
  schemaVersion: 1,
  data: {
    subscriptionId: SUBSCRIPTION_ID,
    invoiceId: 'inv-1',
    billAt: JAN31,
    lines: [
      { itemId: 'a', kind: 'advance', period: { start: '2026-01-31', end: '2026-02-27' }, daysUsed: 28, daysInFullPeriod: 28, fullAmount: 3100, amount: 3100 },
    ],
    billedAt: at(JAN31, 5 * MINUTE),
  },
};
const cancelled = (cancelAt: string): SubscriptionCancelled => ({
  type: 'SubscriptionCancelled',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, cancelAt, cancelledAt: at(JAN31, 10 * MINUTE) },
});
const ended = (endedAt: string): SubscriptionEnded => ({ type: 'SubscriptionEnded', schemaVersion: 1, data: { subscriptionId: SUBSCRIPTION_ID, endedAt } });

const recordFailure =
  (billAt: string, now: string, reason = 'no pricing in EUR') =>
  (state: SubscriptionState) =>
    decideRecordBillingFailure({ subscriptionId: SUBSCRIPTION_ID, billAt: new Date(billAt), reason }, state, metadataAt(now));

/** `count` failures at billAt, each recorded when the previous one's retry came, as the engine would. */
function failures(billAt: string, count: number): SubscriptionBillingFailed[] {
  const events: SubscriptionBillingFailed[] = [];
  let now = billAt;
  for (let attempts = 1; attempts <= count; attempts++) {
    const retryAt = at(now, Math.min(MINUTE * 2 ** (attempts - 1), DAY));
    events.push(failed(billAt, attempts, now, retryAt));
    now = retryAt;
  }
  return events;
}

describe('decideRecordBillingFailure', () => {
  it('the first failure at the next due billAt: attempt 1, retried a minute after it failed', () => {
    const now = at(JAN31, 7_000);
    spec
      .given([created()])
      .when(recordFailure(JAN31, now))
      .then([failed(JAN31, 1, now, at(now, MINUTE))]);
  });

  it('a second failure at the same billAt: attempt 2, retried two minutes later; a third waits four', () => {
    const first = failed(JAN31, 1, JAN31, at(JAN31, MINUTE));
    const secondAt = at(JAN31, MINUTE);
    spec
      .given([created(), first])
      .when(recordFailure(JAN31, secondAt, 'still no pricing'))
      .then([failed(JAN31, 2, secondAt, at(secondAt, 2 * MINUTE), 'still no pricing')]);
    const thirdAt = at(secondAt, 2 * MINUTE);
    spec
      .given([created(), first, failed(JAN31, 2, secondAt, thirdAt)])
      .when(recordFailure(JAN31, thirdAt))
      .then([failed(JAN31, 3, thirdAt, at(thirdAt, 4 * MINUTE))]);
  });

  it('the wait doubles up to a day and stays there (attempt 11: 1 024 min; 12: 2 048 min capped at 1 440; 60: still a day)', () => {
    const tenth = failures(JAN31, 10);
    const eleventhAt = tenth[9].data.retryAt;
    spec
      .given([created(), ...tenth])
      .when(recordFailure(JAN31, eleventhAt))
      .then([failed(JAN31, 11, eleventhAt, at(eleventhAt, 1024 * MINUTE))]);
    const eleven = failures(JAN31, 11);
    const twelfthAt = eleven[10].data.retryAt;
    spec
      .given([created(), ...eleven])
      .when(recordFailure(JAN31, twelfthAt))
      .then([failed(JAN31, 12, twelfthAt, at(twelfthAt, DAY))]);
    const many = failures(JAN31, 59);
    const sixtiethAt = many[58].data.retryAt;
    spec
      .given([created(), ...many])
      .when(recordFailure(JAN31, sixtiethAt))
      .then([failed(JAN31, 60, sixtiethAt, at(sixtiethAt, DAY))]);
  });

  it('records nothing for a billAt that is not the next due one (later, earlier, or already billed)', () => {
    spec.given([created()]).when(recordFailure(FEB28, FEB28)).then([]);
    spec.given([created()]).when(recordFailure('2026-01-30T00:00:00.000Z', JAN31)).then([]);
    spec
      .given([created(), billedJan31])
      .when(recordFailure(JAN31, at(JAN31, 5 * MINUTE)))
      .then([]);
  });

  it('records nothing for a subscription with nothing left to bill (ended); a missing one is not-found', () => {
    const history = [created(), billedJan31, cancelled('2026-02-27'), ended(FEB28)];
    spec.given(history).when(recordFailure(FEB28, FEB28)).then([]);
    spec.given([]).when(recordFailure(JAN31, JAN31)).thenThrows({ code: 'not-found' });
  });

  it('a failure at the next billAt after a billed one starts again at attempt 1', () => {
    const history = [created(), ...failures(JAN31, 3), billedJan31];
    spec
      .given(history)
      .when(recordFailure(FEB28, FEB28))
      .then([failed(FEB28, 1, FEB28, at(FEB28, MINUTE))]);
  });
});

describe('billingFailure in evolve', () => {
  it('SubscriptionBillingFailed records the latest failure on the subscription', () => {
    const state = stateOf(created(), ...failures(JAN31, 2)) as Subscription;
    expect(state.billingFailure).toEqual({ billAt: JAN31, reason: 'no pricing in EUR', attempts: 2, retryAt: at(JAN31, 3 * MINUTE) });
  });

  it('SubscriptionBilled clears it', () => {
    const state = stateOf(created(), ...failures(JAN31, 2), billedJan31) as Subscription;
    expect(state.billingFailure).toBeNull();
    expect(state.lastBilledAt).toBe(JAN31);
  });
});

describe('nextWorkAt', () => {
  it('null when nothing is or will be due: no subscription, ended, or an evergreen one-time item already billed', () => {
    expect(nextWorkAt(stateOf())).toBeNull();
    expect(nextWorkAt(stateOf(created(), billedJan31, cancelled('2026-02-27'), ended(FEB28)))).toBeNull();
    const oneTimeBilled: SubscriptionBilled = {
      ...billedJan31,
      data: { ...billedJan31.data, lines: [{ itemId: 's', kind: 'one_time', period: null, daysUsed: 1, daysInFullPeriod: 1, fullAmount: 500, amount: 500 }] },
    };
    expect(nextWorkAt(stateOf(created({ items: [item('s', ONE_TIME)] }), oneTimeBilled))).toBeNull();
  });

  it('the next due billAt when no failure is pending', () => {
    expect(nextWorkAt(stateOf(created()))).toEqual(new Date(JAN31));
    expect(nextWorkAt(stateOf(created(), billedJan31))).toEqual(new Date(FEB28));
    // A cancelled advance-only subscription billed through cancelAt: only its end is left.
    expect(nextWorkAt(stateOf(created({ items: [item('a', MONTHLY_ADVANCE)] }), billedJan31, cancelled('2026-02-27')))).toEqual(new Date(FEB28));
  });

  it('the retryAt of a failure pending at that billAt, when it is later than billAt', () => {
    expect(nextWorkAt(stateOf(created(), failed(JAN31, 1, JAN31, at(JAN31, MINUTE))))).toEqual(new Date(at(JAN31, MINUTE)));
    expect(nextWorkAt(stateOf(created(), ...failures(JAN31, 12)))).toEqual(new Date(failures(JAN31, 12)[11].data.retryAt));
  });

  it('billAt when the pending failure retries no later than it, or belongs to another billAt', () => {
    expect(nextWorkAt(stateOf(created(), failed(JAN31, 1, '2026-01-30T23:00:00.000Z', '2026-01-30T23:01:00.000Z')))).toEqual(new Date(JAN31));
    expect(nextWorkAt(stateOf(created(), failed(JAN31, 1, JAN31, JAN31)))).toEqual(new Date(JAN31));
    expect(nextWorkAt(stateOf(created(), failed(FEB28, 1, FEB28, at(FEB28, MINUTE))))).toEqual(new Date(JAN31));
  });

  it('after the failed charges are billed, the next billAt again', () => {
    expect(nextWorkAt(stateOf(created(), ...failures(JAN31, 3), billedJan31))).toEqual(new Date(FEB28));
  });
});

describe("an item's failure", () => {
  // Two monthly advance items from Jan 31: 'a' fails at Jan 31, 'b' goes on billing.
  const two = created({ items: [item('a', MONTHLY_ADVANCE), item('b', MONTHLY_ADVANCE)] });
  const failedA = (billAt: string, attempts: number, failedAt: string, retryAt: string): SubscriptionBillingFailed => ({
    ...failed(billAt, attempts, failedAt, retryAt, 'amount exceeds the supported range'),
    data: { ...failed(billAt, attempts, failedAt, retryAt, 'amount exceeds the supported range').data, itemId: 'a' },
  });
  const billedB = (billAt: string, start: string, end: string, invoiceId: string): SubscriptionBilled => ({
    type: 'SubscriptionBilled',
    schemaVersion: 1,
    data: {
      subscriptionId: SUBSCRIPTION_ID,
      invoiceId,
      billAt,
      lines: [{ itemId: 'b', kind: 'advance', period: { start, end }, daysUsed: 28, daysInFullPeriod: 28, fullAmount: 100, amount: 100 }],
      billedAt: billAt,
    },
  });
  const failure = failedA(JAN31, 1, JAN31, at(JAN31, MINUTE));
  const ofTwo = (...events: SubscriptionEvent[]) => stateOf(two, ...events) as Subscription;

  it('issue 20 #18: is recorded for that item only; the other items are due at the same and every later billAt while it waits for its retry', () => {
    spec
      .given([two])
      .when((state) =>
        decideRecordBillingFailure(
          { subscriptionId: SUBSCRIPTION_ID, billAt: new Date(JAN31), reason: 'amount exceeds the supported range', itemId: 'a' },
          state,
          metadataAt(JAN31),
        ),
      )
      .then([failure]);
    // 'b' alone is due at Jan 31, then at Feb 28 although 'a' still waits for Jan 31.
    expect(nextDue(ofTwo(failure))).toMatchObject({ billAt: new Date(JAN31), charges: [{ itemId: 'b' }] });
    const afterB = ofTwo(failure, billedB(JAN31, '2026-01-31', '2026-02-27', 'inv-b1'));
    expect(nextDue(afterB)).toMatchObject({ billAt: new Date(FEB28), charges: [{ itemId: 'b' }] });
    expect(afterB.itemFailures).toEqual({ a: { billAt: JAN31, reason: 'amount exceeds the supported range', attempts: 1, retryAt: at(JAN31, MINUTE) } });
    // Its retry: at retryAt, the item's own charge at its billAt, alone; the engine's next work is then.
    expect(retryDue(afterB, new Date(at(JAN31, MINUTE - 1)))).toBeNull();
    expect(retryDue(afterB, new Date(at(JAN31, MINUTE)))).toMatchObject({
      billAt: new Date(JAN31),
      retryOf: 'a',
      charges: [{ itemId: 'a', period: { start: '2026-01-31', end: '2026-02-27' } }],
    });
    expect(nextWorkAt(afterB)).toEqual(new Date(at(JAN31, MINUTE)));
  });

  it('issue 20 #18: a retry that fails again backs off for that item; once billed (after later periods of the others), the item is billed on', () => {
    const afterFeb = [failure, billedB(JAN31, '2026-01-31', '2026-02-27', 'inv-b1'), billedB(FEB28, '2026-02-28', '2026-03-30', 'inv-b2')];
    spec
      .given([two, ...afterFeb])
      .when((state) =>
        decideRecordBillingFailure(
          { subscriptionId: SUBSCRIPTION_ID, billAt: new Date(JAN31), reason: 'amount exceeds the supported range', itemId: 'a' },
          state,
          metadataAt(FEB28),
        ),
      )
      .then([failedA(JAN31, 2, FEB28, at(FEB28, 2 * MINUTE))]);
    const retried = decideBillDue(
      { subscriptionId: SUBSCRIPTION_ID, billAt: new Date(JAN31), invoiceId: 'inv-a1', amounts: { a: 3100n }, retryOf: 'a' },
      ofTwo(...afterFeb),
      metadataAt(FEB28),
    );
    expect(retried).toMatchObject([
      { type: 'SubscriptionBilled', data: { billAt: JAN31, lines: [{ itemId: 'a', period: { start: '2026-01-31', end: '2026-02-27' } }] } },
    ]);
    const after = ofTwo(...afterFeb, ...retried);
    expect(after).toMatchObject({ lastBilledAt: FEB28, itemFailures: {}, billingFailure: null });
    // 'a' catches up with its next period (Feb 28, billed already for 'b'); a retry of a charge billed already is refused.
    expect(nextDue(after)).toMatchObject({ billAt: new Date(FEB28), charges: [{ itemId: 'a' }] });
    spec
      .given([two, ...afterFeb, ...retried])
      .when((state) =>
        decideBillDue(
          { subscriptionId: SUBSCRIPTION_ID, billAt: new Date(JAN31), invoiceId: 'inv-a1', amounts: { a: 3100n }, retryOf: 'a' },
          state,
          metadataAt(FEB28),
        ),
      )
      .thenThrows({ kind: 'conflict', code: 'subscription-period-billed' });
    expect(
      decideBillDue({ subscriptionId: SUBSCRIPTION_ID, billAt: new Date(FEB28), invoiceId: 'inv-a2', amounts: { a: 3100n } }, after, metadataAt(FEB28)),
    ).toMatchObject([{ type: 'SubscriptionBilled', data: { billAt: FEB28, lines: [{ itemId: 'a', period: { start: '2026-02-28', end: '2026-03-30' } }] } }]);
  });
});
