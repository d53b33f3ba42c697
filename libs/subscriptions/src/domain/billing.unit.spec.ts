import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { BillDue } from './billing-commands';
import { DueBilling, ItemCharge, nextDue, timelineAt } from './billing';
import { decideAdvanceSubscription, decideBillDue } from './billing-decisions';
import { BilledLine, SubscriptionBilled, SubscriptionCancelled, SubscriptionEnded, SubscriptionEvent, SubscriptionRenewed } from './subscription-events';
import { Subscription, SubscriptionState, subscriptionEvolver } from './subscription';
import { MONTHLY_ADVANCE, MONTHLY_ARREARS, ONE_TIME, SUBSCRIPTION_ID, WEEKLY_ADVANCE, created, item } from './subscription.arbitraries';

const spec = deciderSpec(subscriptionEvolver);
const stateOf = (...events: SubscriptionEvent[]): SubscriptionState => foldEvents(subscriptionEvolver, events);
const subscriptionOf = (...events: SubscriptionEvent[]) => stateOf(...events) as Subscription;
const instant = (iso: string) => new Date(iso);

const charge = (
  itemId: string,
  kind: ItemCharge['kind'],
  billAt: string,
  period: [string, string] | null,
  daysUsed: number,
  daysInFullPeriod: number,
): ItemCharge => ({
  itemId,
  kind,
  billAt: instant(billAt),
  period: period && { start: period[0], end: period[1] },
  daysUsed,
  daysInFullPeriod,
});
const line = (c: ItemCharge, fullAmount: number, amount = fullAmount): BilledLine => ({
  itemId: c.itemId,
  kind: c.kind,
  period: c.period,
  daysUsed: c.daysUsed,
  daysInFullPeriod: c.daysInFullPeriod,
  fullAmount,
  amount,
});
const billed = (billAt: string, lines: BilledLine[], billedAt = billAt, invoiceId = 'inv-1'): SubscriptionBilled => ({
  type: 'SubscriptionBilled',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, invoiceId, billAt, lines, billedAt },
});
const renewed = (start: string, end: string, at: string): SubscriptionRenewed => ({
  type: 'SubscriptionRenewed',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, term: { start, end }, renewedAt: at },
});
const ended = (at: string): SubscriptionEnded => ({ type: 'SubscriptionEnded', schemaVersion: 1, data: { subscriptionId: SUBSCRIPTION_ID, endedAt: at } });
const cancelled = (cancelAt: string): SubscriptionCancelled => ({
  type: 'SubscriptionCancelled',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, cancelAt, cancelledAt: '2026-02-01T00:00:00.000Z' },
});
const billDue =
  (billAt: string, amounts: Record<string, bigint>, now = billAt) =>
  (state: SubscriptionState) =>
    decideBillDue({ subscriptionId: SUBSCRIPTION_ID, billAt: instant(billAt), invoiceId: 'inv-1', amounts } satisfies BillDue, state, metadataAt(now));
const advance = (now: string) => (state: SubscriptionState) => decideAdvanceSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt(now));

const JAN31 = '2026-01-31T00:00:00.000Z';
const FEB28 = '2026-02-28T00:00:00.000Z';
const firstMonth = charge('a', 'advance', JAN31, ['2026-01-31', '2026-02-27'], 28, 28);

// ---------------------------------------------------------------- nextDue

describe('nextDue', () => {
  it('advance: the first period, billed at the start of its first day', () => {
    expect(nextDue(stateOf(created()))).toEqual<DueBilling>({ billAt: instant(JAN31), renewal: null, charges: [firstMonth], ends: false, prorations: [] });
  });

  it('billAt is local midnight in the subscription zone (Helsinki, UTC+2 in winter)', () => {
    expect(nextDue(stateOf(created({ timeZone: 'Europe/Helsinki' })))?.billAt).toEqual(instant('2026-01-30T22:00:00.000Z'));
  });

  it('groups the items due at the same instant: one-time and advance at the start, then advance with the previous arrears', () => {
    const history = [created({ items: [item('s', ONE_TIME), item('a', MONTHLY_ADVANCE), item('r', MONTHLY_ARREARS)] })];
    expect(nextDue(stateOf(...history))?.charges).toEqual([charge('s', 'one_time', JAN31, null, 1, 1), firstMonth]);
    const afterFirst = [...history, billed(JAN31, [line(charge('s', 'one_time', JAN31, null, 1, 1), 500), line(firstMonth, 3100)])];
    expect(nextDue(stateOf(...afterFirst))).toEqual<DueBilling>({
      billAt: instant(FEB28),
      renewal: null,
      charges: [charge('a', 'advance', FEB28, ['2026-02-28', '2026-03-30'], 31, 31), charge('r', 'arrears', FEB28, ['2026-01-31', '2026-02-27'], 28, 28)],
      ends: false,
      prorations: [],
    });
  });

  it('a term end inside a period shortens it; an advance-only subscription then just ends the day after', () => {
    const history = [created({ term: { start: '2026-01-31', end: '2026-03-15' } }), billed(JAN31, [line(firstMonth, 3100)])];
    const shortened = charge('a', 'advance', FEB28, ['2026-02-28', '2026-03-15'], 16, 31);
    expect(nextDue(stateOf(...history))?.charges).toEqual([shortened]);
    expect(nextDue(stateOf(...history, billed(FEB28, [line(shortened, 3100, 1600)])))).toEqual<DueBilling>({
      billAt: instant('2026-03-16T00:00:00.000Z'),
      renewal: null,
      charges: [],
      ends: true,
      prorations: [],
    });
  });

  it('the final arrears bill the day after cancelAt, and the subscription ends with them', () => {
    const r1 = charge('r', 'arrears', FEB28, ['2026-01-31', '2026-02-27'], 28, 28);
    const history = [created({ items: [item('r', MONTHLY_ARREARS)] }), billed(FEB28, [line(r1, 3100)]), cancelled('2026-03-10')];
    expect(nextDue(stateOf(...history))).toEqual<DueBilling>({
      billAt: instant('2026-03-11T00:00:00.000Z'),
      renewal: null,
      charges: [charge('r', 'arrears', '2026-03-11T00:00:00.000Z', ['2026-02-28', '2026-03-10'], 11, 31)],
      ends: true,
      prorations: [],
    });
  });

  it('a renewal comes first at the term end, so the new term’s advance joins the old term’s arrears', () => {
    const history = [
      created({ term: { start: '2026-01-01', end: '2026-01-31' }, autoRenewal: true, items: [item('a', MONTHLY_ADVANCE), item('r', MONTHLY_ARREARS)] }),
    ];
    const jan1 = '2026-01-01T00:00:00.000Z';
    const feb1 = '2026-02-01T00:00:00.000Z';
    const a1 = charge('a', 'advance', jan1, ['2026-01-01', '2026-01-31'], 31, 31);
    expect(nextDue(stateOf(...history, billed(jan1, [line(a1, 3100)])))).toEqual<DueBilling>({
      billAt: instant(feb1),
      renewal: { start: '2026-02-01', end: '2026-02-28' },
      charges: [charge('a', 'advance', feb1, ['2026-02-01', '2026-02-28'], 28, 28), charge('r', 'arrears', feb1, ['2026-01-01', '2026-01-31'], 31, 31)],
      ends: false,
      prorations: [],
    });
  });

  it('after a reactivation, the rest of a period cut short at cancelAt is billed pro rata from the day after', () => {
    const feb7 = '2026-02-07T00:00:00.000Z';
    const history = [
      created({ items: [item('w', WEEKLY_ADVANCE)] }),
      billed(JAN31, [line(charge('w', 'advance', JAN31, ['2026-01-31', '2026-02-06'], 7, 7), 700)]),
      cancelled('2026-02-10'),
      billed(feb7, [line(charge('w', 'advance', feb7, ['2026-02-07', '2026-02-10'], 4, 7), 700, 400)]),
      { type: 'SubscriptionReactivated', schemaVersion: 1, data: { subscriptionId: SUBSCRIPTION_ID, reactivatedAt: '2026-02-09T00:00:00.000Z' } } as const,
    ];
    const feb11 = '2026-02-11T00:00:00.000Z';
    expect(nextDue(stateOf(...history))?.charges).toEqual([charge('w', 'advance', feb11, ['2026-02-11', '2026-02-13'], 3, 7)]);
  });

  it('nothing is ever due for an ended subscription, nor for an evergreen one whose one-time charge is billed', () => {
    expect(nextDue(stateOf(created(), cancelled('2026-03-30'), ended('2026-03-31T00:00:00.000Z')))).toBeNull();
    const oneTime = charge('s', 'one_time', JAN31, null, 1, 1);
    expect(nextDue(stateOf(created({ items: [item('s', ONE_TIME)] }), billed(JAN31, [line(oneTime, 500)])))).toBeNull();
    expect(nextDue(stateOf())).toBeNull();
  });
});

// ---------------------------------------------------------------- decideBillDue

describe('decideBillDue', () => {
  it('bills the charges due at billAt, one SubscriptionBilled for the invoice', () => {
    spec
      .given([created()])
      .when(billDue(JAN31, { a: 3100n }, '2026-01-31T06:00:00.000Z'))
      .then([billed(JAN31, [line(firstMonth, 3100)], '2026-01-31T06:00:00.000Z')]);
  });

  it('pro-rates a shortened period by days, rounding once (3 100 × 16 ÷ 31 = 1 600; 1 000 × 16 ÷ 31 = 516.13 → 516)', () => {
    const history = [created({ term: { start: '2026-01-31', end: '2026-03-15' } }), billed(JAN31, [line(firstMonth, 3100)])];
    const shortened = charge('a', 'advance', FEB28, ['2026-02-28', '2026-03-15'], 16, 31);
    spec
      .given(history)
      .when(billDue(FEB28, { a: 3100n }))
      .then([billed(FEB28, [line(shortened, 3100, 1600)])]);
    spec
      .given(history)
      .when(billDue(FEB28, { a: 1000n }))
      .then([billed(FEB28, [line(shortened, 1000, 516)])]);
  });

  it('records a renewal due at the same instant before the charges', () => {
    const jan1 = '2026-01-01T00:00:00.000Z';
    const feb1 = '2026-02-01T00:00:00.000Z';
    const a1 = charge('a', 'advance', jan1, ['2026-01-01', '2026-01-31'], 31, 31);
    const history = [created({ term: { start: '2026-01-01', end: '2026-01-31' }, autoRenewal: true }), billed(jan1, [line(a1, 3100)])];
    const a2 = charge('a', 'advance', feb1, ['2026-02-01', '2026-02-28'], 28, 28);
    spec
      .given(history)
      .when(billDue(feb1, { a: 3100n }))
      .then([renewed('2026-02-01', '2026-02-28', feb1), billed(feb1, [line(a2, 3100)])]);
  });

  it('records the end after the final arrears', () => {
    const r1 = charge('r', 'arrears', FEB28, ['2026-01-31', '2026-02-27'], 28, 28);
    const history = [created({ items: [item('r', MONTHLY_ARREARS)] }), billed(FEB28, [line(r1, 3100)]), cancelled('2026-03-10')];
    const mar11 = '2026-03-11T00:00:00.000Z';
    const last = charge('r', 'arrears', mar11, ['2026-02-28', '2026-03-10'], 11, 31);
    spec
      .given(history)
      .when(billDue(mar11, { r: 3100n }))
      .then([billed(mar11, [line(last, 3100, 1100)]), ended(mar11)]);
  });

  it('billing a billAt twice is refused: 409 subscription-period-billed', () => {
    spec
      .given([created(), billed(JAN31, [line(firstMonth, 3100)])])
      .when(billDue(JAN31, { a: 3100n }))
      .thenThrows({ kind: 'conflict', code: 'subscription-period-billed' });
  });

  it('a billAt that is not the next one with charges, or not yet reached, is 409 subscription-billing-not-due', () => {
    const notDue = { kind: 'conflict', code: 'subscription-billing-not-due' };
    spec
      .given([created()])
      .when(billDue(JAN31, { a: 3100n }, '2026-01-30T23:59:59.000Z'))
      .thenThrows(notDue);
    spec
      .given([created()])
      .when(billDue(FEB28, { a: 3100n }))
      .thenThrows(notDue);
    const oneTimeBilled = [
      created({ term: { start: '2026-01-31', end: '2026-02-10' }, items: [item('s', ONE_TIME)] }),
      billed(JAN31, [line(charge('s', 'one_time', JAN31, null, 1, 1), 500)]),
    ];
    spec.given(oneTimeBilled).when(billDue('2026-02-11T00:00:00.000Z', {})).thenThrows(notDue);
  });

  it('an ended subscription is 409 subscription-ended; a missing one 404', () => {
    spec
      .given([created(), cancelled('2026-01-31'), ended('2026-02-01T00:00:00.000Z')])
      .when(billDue('2026-03-01T00:00:00.000Z', { a: 1n }))
      .thenThrows({ code: 'subscription-ended' });
    spec
      .given([])
      .when(billDue(JAN31, { a: 1n }))
      .thenThrows({ kind: 'not_found' });
  });

  it('needs exactly one amount per charged item, within the amount range: 422 at /amounts/{itemId}', () => {
    spec
      .given([created()])
      .when(billDue(JAN31, {}))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/amounts/a' })] });
    spec
      .given([created()])
      .when(billDue(JAN31, { a: 1n, b: 1n }))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/amounts/b' })] });
    spec
      .given([created()])
      .when(billDue(JAN31, { a: 2n ** 53n }))
      .thenThrows({ kind: 'validation', code: 'amount-out-of-range' });
  });
});

// ---------------------------------------------------------------- decideAdvanceSubscription

describe('decideAdvanceSubscription', () => {
  it('an advance-only subscription without autoRenewal ends at the start of the day after term.end (Helsinki)', () => {
    const history = [
      created({ term: { start: '2026-01-31', end: '2026-02-27' }, timeZone: 'Europe/Helsinki' }),
      billed('2026-01-30T22:00:00.000Z', [line({ ...firstMonth, billAt: instant('2026-01-30T22:00:00.000Z') }, 3100)]),
    ];
    spec.given(history).when(advance('2026-02-27T21:59:59.000Z')).then([]);
    spec
      .given(history)
      .when(advance('2026-02-27T22:00:00.000Z'))
      .then([ended('2026-02-27T22:00:00.000Z')]);
  });

  it('a cancelled advance-only subscription, billed through cancelAt, ends the day after', () => {
    const history = [created(), billed(JAN31, [line(firstMonth, 3100)]), cancelled('2026-02-27')];
    spec
      .given(history)
      .when(advance('2026-03-05T00:00:00.000Z'))
      .then([ended(FEB28)]);
  });

  it('renews every term that ends without a charge, up to now', () => {
    const history = [created({ term: { start: '2026-01-01', end: '2026-01-31' }, autoRenewal: true, items: [item('s', ONE_TIME)] })];
    const jan1 = '2026-01-01T00:00:00.000Z';
    const done = [...history, billed(jan1, [line(charge('s', 'one_time', jan1, null, 1, 1), 500)])];
    spec
      .given(done)
      .when(advance('2026-03-15T00:00:00.000Z'))
      .then([renewed('2026-02-01', '2026-02-28', '2026-02-01T00:00:00.000Z'), renewed('2026-03-01', '2026-03-31', '2026-03-01T00:00:00.000Z')]);
  });

  it('leaves charges to decideBillDue and does nothing when nothing is due', () => {
    spec.given([created()]).when(advance('2026-06-01T00:00:00.000Z')).then([]);
    spec
      .given([created(), cancelled('2026-01-31'), ended('2026-02-01T00:00:00.000Z')])
      .when(advance('2026-06-01T00:00:00.000Z'))
      .then([]);
    spec.given([]).when(advance(JAN31)).thenThrows({ kind: 'not_found' });
  });
});

// ---------------------------------------------------------------- timelineAt

describe('timelineAt', () => {
  it('before the start: the first period and its billAt', () => {
    expect(timelineAt(subscriptionOf(created()), instant('2026-01-10T00:00:00.000Z'))).toEqual({
      status: 'active',
      term: { start: '2026-01-31', end: null },
      items: [{ itemId: 'a', period: { start: '2026-01-31', end: '2026-02-27' }, billAt: instant(JAN31) }],
    });
  });

  it('the period holding now and the next billAt; one-time items have no period and no billAt once billed', () => {
    const oneTime = charge('s', 'one_time', JAN31, null, 1, 1);
    const subscription = subscriptionOf(
      created({ items: [item('a', MONTHLY_ADVANCE), item('s', ONE_TIME)] }),
      billed(JAN31, [line(firstMonth, 3100), line(oneTime, 500)]),
    );
    expect(timelineAt(subscription, instant('2026-02-10T00:00:00.000Z')).items).toEqual([
      { itemId: 'a', period: { start: '2026-01-31', end: '2026-02-27' }, billAt: instant(FEB28) },
      { itemId: 's', period: null, billAt: null },
    ]);
  });

  it('the renewed term’s first bill once the current term is billed', () => {
    const jan1 = '2026-01-01T00:00:00.000Z';
    const a1 = charge('a', 'advance', jan1, ['2026-01-01', '2026-01-31'], 31, 31);
    const subscription = subscriptionOf(created({ term: { start: '2026-01-01', end: '2026-01-31' }, autoRenewal: true }), billed(jan1, [line(a1, 3100)]));
    expect(timelineAt(subscription, instant('2026-01-15T00:00:00.000Z')).items[0].billAt).toEqual(instant('2026-02-01T00:00:00.000Z'));
  });

  it('cancelled: the last period ends at cancelAt; after it, ended with nothing more to bill', () => {
    const subscription = subscriptionOf(created({ items: [item('w', WEEKLY_ADVANCE)] }), cancelled('2026-02-10'));
    expect(timelineAt(subscription, instant('2026-02-09T00:00:00.000Z'))).toMatchObject({
      status: 'cancelled',
      items: [{ period: { start: '2026-02-07', end: '2026-02-10' }, billAt: instant(JAN31) }],
    });
    const billedOut = subscriptionOf(
      created({ items: [item('w', WEEKLY_ADVANCE)] }),
      cancelled('2026-02-10'),
      billed(JAN31, [line(charge('w', 'advance', JAN31, ['2026-01-31', '2026-02-06'], 7, 7), 700)]),
      billed('2026-02-07T00:00:00.000Z', [line(charge('w', 'advance', '2026-02-07T00:00:00.000Z', ['2026-02-07', '2026-02-10'], 4, 7), 700, 400)]),
    );
    expect(timelineAt(billedOut, instant('2026-03-01T00:00:00.000Z'))).toMatchObject({
      status: 'ended',
      items: [{ period: { start: '2026-02-07', end: '2026-02-10' }, billAt: null }],
    });
  });
});
