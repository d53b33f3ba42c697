import fc from 'fast-check';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { billableMetricEvolver, decideCreateBillableMetric, decideSetUsageSettings, usageSettingsEvolver } from './billable-metric';
import { decideBillDue, decideBookUsageInvoice, decideCancelUsageEvent, dueBooking } from './billing-decisions';
import { nextDue, nextWorkAt } from './billing';
import { Subscription, subscriptionEvolver, SubscriptionState } from './subscription';
import { created, item, SUBSCRIPTION_ID } from './subscription.arbitraries';
import { ItemSchedule, SubscriptionBilled, SubscriptionEvent, UsageEventCancelled } from './subscription-events';
import { aggregate, Aggregation, ONE_UNIT, rateUsage, UsageRecord, usageValue } from './usage';

// ---------------------------------------------------------------- aggregations (properties against an independent oracle)

/** Events as a client would send them: a day offset, an id, a value with up to 4 decimals as a decimal string, a small set of keys. */
const eventArb = fc.record({
  at: fc.integer({ min: 0, max: 30 * 86_400_000 }),
  id: fc.uuid(),
  tenThousandths: fc.integer({ min: 0, max: 50_000_000 }),
  key: fc.constantFrom('ann', 'bob', 'cid', 'dee', 7, 8),
});
const eventsArb = fc.array(eventArb, { maxLength: 60 });

/** The oracle works on decimal strings and plain numbers of units (not on the scaled bigints under test). */
const decimal = (tenThousandths: number) => `${Math.floor(tenThousandths / 10_000)}.${String(tenThousandths % 10_000).padStart(4, '0')}`;
function oracle(aggregation: Aggregation, events: readonly { tenThousandths: number; key: unknown }[]): string {
  switch (aggregation) {
    case 'count':
      return `${events.length}.0000`;
    case 'sum':
      return decimal(events.reduce((sum, e) => sum + e.tenThousandths, 0));
    case 'max':
      return decimal(events.reduce((max, e) => Math.max(max, e.tenThousandths), 0));
    case 'unique_count':
      return `${new Set(events.map((e) => JSON.stringify(e.key))).size}.0000`;
  }
}
const recordsOf = (aggregation: Aggregation, events: readonly { at: number; id: string; tenThousandths: number; key: unknown }[]): UsageRecord[] =>
  events.map((e) => ({
    at: e.at,
    id: e.id,
    value: aggregation === 'count' ? null : aggregation === 'unique_count' ? JSON.stringify(e.key) : BigInt(e.tenThousandths),
  }));
const asDecimal = (scaled: bigint) => `${scaled / ONE_UNIT}.${String(scaled % ONE_UNIT).padStart(4, '0')}`;

describe('aggregate', () => {
  it.each<Aggregation>(['count', 'sum', 'max', 'unique_count'])('%s of any events equals the oracle', (aggregation) => {
    fc.assert(fc.property(eventsArb, (events) => expect(asDecimal(aggregate(aggregation, recordsOf(aggregation, events)))).toBe(oracle(aggregation, events))));
  });

  it('does not depend on the order the events arrive in', () => {
    fc.assert(
      fc.property(fc.constantFrom<Aggregation>('count', 'sum', 'max', 'unique_count'), eventsArb, (aggregation, events) => {
        const records = recordsOf(aggregation, events);
        expect(aggregate(aggregation, [...records].reverse())).toBe(aggregate(aggregation, records));
      }),
    );
  });
});

// ---------------------------------------------------------------- rating

const fee = (unitAmount: number) => (version: number, quantity: bigint) => {
  void version;
  // round(unitAmount × quantity), half away from zero: what the catalog's fee pricing computes.
  const exact = BigInt(unitAmount) * quantity;
  return (exact + ONE_UNIT / 2n) / ONE_UNIT;
};
const unitPrices = [100, 250, 40];
const feeAt = (version: number, quantity: bigint) => fee(unitPrices[version])(version, quantity);
const versions = [
  { from: 0, version: 0 },
  { from: 10 * 86_400_000, version: 1 },
  { from: 20 * 86_400_000, version: 2 },
];

describe('rateUsage', () => {
  it('with one version is the pricing of the whole quantity', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        const rated = rateUsage('sum', recordsOf('sum', events), [versions[0]], 31 * 86_400_000, feeAt);
        expect(rated.amount).toBe(feeAt(0, aggregate('sum', recordsOf('sum', events))));
        expect(rated.segments).toHaveLength(1);
      }),
    );
  });

  it('count at a fee price: each event is billed at the unit price in force when it happened (oracle: per-event sum)', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        const rated = rateUsage('count', recordsOf('count', events), versions, 31 * 86_400_000, feeAt);
        const inForce = (at: number) => (at >= 20 * 86_400_000 ? 40 : at >= 10 * 86_400_000 ? 250 : 100);
        expect(Number(rated.amount)).toBe(events.reduce((sum, e) => sum + inForce(e.at), 0));
      }),
    );
  });

  it('segments share out the whole quantity and sum to the amount; max goes to one segment; arrival order does not matter', () => {
    fc.assert(
      fc.property(fc.constantFrom<Aggregation>('count', 'sum', 'max', 'unique_count'), eventsArb, (aggregation, events) => {
        const records = recordsOf(aggregation, events);
        const rated = rateUsage(aggregation, records, versions, 31 * 86_400_000, feeAt);
        expect(rated.quantity).toBe(aggregate(aggregation, records));
        expect(rated.segments.reduce((sum, s) => sum + s.quantity, 0n)).toBe(rated.quantity);
        expect(rated.segments.reduce((sum, s) => sum + s.amount, 0n)).toBe(rated.amount);
        if (aggregation === 'max') expect(rated.segments).toHaveLength(1);
        expect(rateUsage(aggregation, [...records].reverse(), versions, 31 * 86_400_000, feeAt)).toEqual(rated);
      }),
    );
  });

  it('a period without usage bills P(0) at the version in force at its end', () => {
    expect(rateUsage('count', [], versions, 15 * 86_400_000, (version, quantity) => BigInt(version * 1000) + quantity)).toEqual({
      quantity: 0n,
      amount: 1000n,
      segments: [{ version: 1, from: 10 * 86_400_000, quantity: 0n, amount: 1000n }],
    });
  });

  it('unique_count attributes a value to the version in force when it was first seen', () => {
    const records = [
      { at: 1, id: 'a', value: '"ann"' },
      { at: 11 * 86_400_000, id: 'b', value: '"ann"' },
      { at: 12 * 86_400_000, id: 'c', value: '"bob"' },
    ];
    const rated = rateUsage('unique_count', records, versions, 31 * 86_400_000, feeAt);
    expect(rated.segments.map((s) => [s.version, s.quantity, s.amount])).toEqual([
      [0, ONE_UNIT, 100n],
      [1, ONE_UNIT, 250n],
    ]);
  });
});

// ---------------------------------------------------------------- metrics and settings

describe('decideCreateBillableMetric', () => {
  const spec = deciderSpec(billableMetricEvolver);
  const NOW = '2026-03-01T00:00:00.000Z';

  it('creates a metric; a count has no field', () => {
    spec
      .given([])
      .when((state) => decideCreateBillableMetric({ metricId: 'm-1', body: { code: 'calls', name: 'Calls', aggregation: 'count' } }, state, metadataAt(NOW)))
      .then([
        {
          type: 'BillableMetricCreated',
          schemaVersion: 1,
          data: { metricId: 'm-1', code: 'calls', name: 'Calls', aggregation: 'count', field: null, createdAt: NOW },
        },
      ]);
  });

  it('refuses a code that exists (409) and invalid bodies (422 at each pointer)', () => {
    const event = decideCreateBillableMetric(
      { metricId: 'm-1', body: { code: 'gb', name: 'GB', aggregation: 'sum', field: 'gb' } },
      { status: 'none' },
      metadataAt(NOW),
    );
    spec
      .given(event)
      .when((state) =>
        decideCreateBillableMetric({ metricId: 'm-1', body: { code: 'gb', name: 'GB', aggregation: 'max', field: 'gb' } }, state, metadataAt(NOW)),
      )
      .thenThrows({ kind: 'conflict', code: 'billable-metric-exists' });
    spec
      .given([])
      .when((state) => decideCreateBillableMetric({ metricId: 'm-1', body: { code: '', name: 'x', aggregation: 'max' } }, state, metadataAt(NOW)))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/code' }), expect.objectContaining({ pointer: '/field' })] });
    spec
      .given([])
      .when((state) => decideCreateBillableMetric({ metricId: 'm', body: [] }, state, metadataAt(NOW)))
      .thenThrows({ kind: 'validation' });
  });
});

describe('decideSetUsageSettings', () => {
  const spec = deciderSpec(usageSettingsEvolver);
  const NOW = '2026-03-01T00:00:00.000Z';
  const changed = (hours: number) => ({ type: 'UsageSettingsChanged' as const, schemaVersion: 1, data: { usageGracePeriodHours: hours, changedAt: NOW } });

  it('sets the grace period; the same value again records nothing; even 0 is recorded the first time', () => {
    spec
      .given([])
      .when((state) => decideSetUsageSettings({ usageGracePeriodHours: 0 }, state, metadataAt(NOW)))
      .then([changed(0)]);
    spec
      .given([changed(24)])
      .when((state) => decideSetUsageSettings({ usageGracePeriodHours: 24 }, state, metadataAt(NOW)))
      .then([]);
    spec
      .given([changed(24)])
      .when((state) => decideSetUsageSettings({ usageGracePeriodHours: 48 }, state, metadataAt(NOW)))
      .then([changed(48)]);
  });

  it.each([[-1], [721], [1.5], ['2'], [null]])('refuses %p', (hours) => {
    spec
      .given([])
      .when((state) => decideSetUsageSettings({ usageGracePeriodHours: hours }, state, metadataAt(NOW)))
      .thenThrows({ kind: 'validation' });
  });
});

// ---------------------------------------------------------------- billing usage

describe('billing event_based items', () => {
  const spec = deciderSpec(subscriptionEvolver);
  const USAGE: ItemSchedule = { purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'event_based', metricCode: 'calls' };
  const start = created({ term: { start: '2026-03-01', end: '2026-03-20' }, items: [item('u', USAGE)] });
  const BILL_AT = new Date('2026-03-21T00:00:00.000Z');
  const charge = { itemId: 'u', period: { start: '2026-03-01', end: '2026-03-20' }, quantity: '7', amount: 700 };
  /** The final billing: SubscriptionBilled and, as the term ends there, SubscriptionEnded. */
  const billed = (bookAt: string | null): SubscriptionEvent[] =>
    decideBillDue(
      {
        subscriptionId: SUBSCRIPTION_ID,
        billAt: BILL_AT,
        invoiceId: 'inv-1',
        amounts: { u: 700n },
        usage: [charge],
        bookAt: bookAt === null ? null : new Date(bookAt),
        usageLines: { first: 0, count: 1 },
      },
      [start].reduce(subscriptionEvolver.evolve, subscriptionEvolver.initialState()),
      metadataAt('2026-03-21T00:00:00.000Z'),
    );
  const stateOf = (events: SubscriptionEvent[]) => events.reduce(subscriptionEvolver.evolve, subscriptionEvolver.initialState()) as Subscription;

  it('bills in arrears of the (shortened) period and never pro-rates usage', () => {
    expect(nextDue(stateOf([start]))).toMatchObject({ billAt: BILL_AT, charges: [{ itemId: 'u', kind: 'event_based', daysUsed: 20, daysInFullPeriod: 31 }] });
    const [bill, end] = billed(null);
    expect((bill as SubscriptionBilled).data.lines[0]).toMatchObject({ kind: 'event_based', fullAmount: 700, amount: 700 });
    expect(end.type).toBe('SubscriptionEnded');
  });

  it('without a grace period records the usage as booked; with one, the draft waits for bookAt and nextWorkAt says so', () => {
    expect(stateOf([start, ...billed(null)])).toMatchObject({ usageBilled: { u: [charge] } });
    expect(stateOf([start, ...billed(null)]).pendingBookings).toBeUndefined();
    const pending = stateOf([start, ...billed('2026-03-23T00:00:00.000Z')]);
    expect(pending.pendingBookings).toEqual([
      { invoiceId: 'inv-1', billAt: BILL_AT.toISOString(), bookAt: '2026-03-23T00:00:00.000Z', usage: [charge], usageLines: { first: 0, count: 1 } },
    ]);
    expect(pending.usageBilled).toEqual({});
    // The subscription ended with its final billing, but its draft is still to be booked.
    expect(nextWorkAt(pending)).toEqual(new Date('2026-03-23T00:00:00.000Z'));
    expect(dueBooking(pending, new Date('2026-03-22T23:59:59.999Z'))).toBeNull();
    expect(dueBooking(pending, new Date('2026-03-23T00:00:00.000Z'))).toMatchObject({ invoiceId: 'inv-1' });
  });

  it('books the draft once its grace has ended, with the usage re-rated, and refuses before and twice', () => {
    const history = [start, ...billed('2026-03-23T00:00:00.000Z')];
    const late = { ...charge, quantity: '8', amount: 800 };
    spec
      .given(history)
      .when((state) =>
        decideBookUsageInvoice({ subscriptionId: SUBSCRIPTION_ID, invoiceId: 'inv-1', usage: [late] }, state, metadataAt('2026-03-22T00:00:00.000Z')),
      )
      .thenThrows({ kind: 'conflict', code: 'subscription-billing-not-due' });
    const booked = decideBookUsageInvoice(
      { subscriptionId: SUBSCRIPTION_ID, invoiceId: 'inv-1', usage: [late] },
      stateOf(history),
      metadataAt('2026-03-23T00:00:00.000Z'),
    );
    expect(booked).toEqual([
      {
        type: 'SubscriptionInvoiceBooked',
        schemaVersion: 1,
        data: { subscriptionId: SUBSCRIPTION_ID, invoiceId: 'inv-1', billAt: BILL_AT.toISOString(), usage: [late], bookedAt: '2026-03-23T00:00:00.000Z' },
      },
    ]);
    const after = stateOf([...history, ...booked]);
    expect(after).toMatchObject({ pendingBookings: [], usageBilled: { u: [late] } });
    expect(nextWorkAt(after)).toBeNull();
    spec
      .given([...history, ...booked])
      .when((state) =>
        decideBookUsageInvoice({ subscriptionId: SUBSCRIPTION_ID, invoiceId: 'inv-1', usage: [late] }, state, metadataAt('2026-03-24T00:00:00.000Z')),
      )
      .thenThrows({ kind: 'conflict', code: 'subscription-billing-not-due' });
  });

  it('issue 20 #18: a usage event is cancelled while its period is open (not billed, or on a draft in its grace period), never once booked', () => {
    const cancel =
      (occurredAt: string, at = '2026-03-22T00:00:00.000Z') =>
      (state: SubscriptionState) =>
        decideCancelUsageEvent(
          { subscriptionId: SUBSCRIPTION_ID, eventId: 'e-1', metricCode: 'calls', occurredAt: new Date(occurredAt) },
          state,
          metadataAt(at),
        );
    const cancelled = (timestamp: string, at = '2026-03-22T00:00:00.000Z'): UsageEventCancelled => ({
      type: 'UsageEventCancelled',
      schemaVersion: 1,
      data: { subscriptionId: SUBSCRIPTION_ID, eventId: 'e-1', metricCode: 'calls', timestamp, cancelledAt: at },
    });
    spec
      .given([start])
      .when(cancel('2026-03-10T11:00:00.000Z'))
      .then([cancelled('2026-03-10T11:00:00.000Z')]);
    spec
      .given([start, ...billed('2026-03-23T00:00:00.000Z')])
      .when(cancel('2026-03-20T23:59:59.999Z'))
      .then([cancelled('2026-03-20T23:59:59.999Z')]);
    spec
      .given([start, ...billed(null)])
      .when(cancel('2026-03-20T23:59:59.999Z'))
      .thenThrows({ kind: 'conflict', code: 'usage-event-billed' });
    spec.given([]).when(cancel('2026-03-10T11:00:00.000Z')).thenThrows({ kind: 'not_found' });
    // The fact changes nothing the subscription bills from.
    expect(stateOf([start, cancelled('2026-03-10T11:00:00.000Z')])).toEqual(stateOf([start]));
  });

  it('a correction replaces the booked record of its period; periods older than the 35-day window are dropped', () => {
    const evergreen = created({ term: { start: '2026-03-01', end: null }, items: [item('u', USAGE)] });
    const march = decideBillDue(
      {
        subscriptionId: SUBSCRIPTION_ID,
        billAt: new Date('2026-04-01T00:00:00.000Z'),
        invoiceId: 'inv-1',
        amounts: { u: 700n },
        usage: [{ ...charge, period: { start: '2026-03-01', end: '2026-03-31' } }],
      },
      stateOf([evergreen]),
      metadataAt('2026-04-01T00:00:00.000Z'),
    );
    const correction = { itemId: 'u', period: { start: '2026-03-01', end: '2026-03-31' }, quantity: '9', amount: 900, quantityDelta: '2', amountDelta: 200 };
    const april = decideBillDue(
      {
        subscriptionId: SUBSCRIPTION_ID,
        billAt: new Date('2026-05-01T00:00:00.000Z'),
        invoiceId: 'inv-2',
        amounts: { u: 100n },
        usage: [{ itemId: 'u', period: { start: '2026-04-01', end: '2026-04-30' }, quantity: '1', amount: 100 }],
        corrections: [correction],
      },
      stateOf([evergreen, ...march]),
      metadataAt('2026-05-01T00:00:00.000Z'),
    );
    expect(stateOf([evergreen, ...march, ...april]).usageBilled).toEqual({
      u: [
        { itemId: 'u', period: correction.period, quantity: '9', amount: 900 },
        { itemId: 'u', period: { start: '2026-04-01', end: '2026-04-30' }, quantity: '1', amount: 100 },
      ],
    });
    const may = decideBillDue(
      {
        subscriptionId: SUBSCRIPTION_ID,
        billAt: new Date('2026-06-01T00:00:00.000Z'),
        invoiceId: 'inv-3',
        amounts: { u: 0n },
        usage: [{ itemId: 'u', period: { start: '2026-05-01', end: '2026-05-31' }, quantity: '0', amount: 0 }],
      },
      stateOf([evergreen, ...march, ...april]),
      metadataAt('2026-06-01T00:00:00.000Z'),
    );
    // March ended more than 37 days before June 1: no event can reach it any more.
    expect(stateOf([evergreen, ...march, ...april, ...may]).usageBilled!.u.map((record) => record.period.start)).toEqual(['2026-04-01', '2026-05-01']);
  });
});

describe('usageValue', () => {
  it('issue 20 #18: refuses values outside 0 to 10^9 with at most 4 decimals and numbers not written canonically', () => {
    for (const value of [
      1e308,
      2 ** 53 + 1,
      '9'.repeat(10_000),
      ' 1',
      '1 ',
      '01',
      '+1',
      '-0',
      '1e3',
      '1.',
      '.5',
      -1,
      1e-7,
      0.30000000000000004,
      '1.23456',
      1_000_000_000.0001,
      '1000000000.0001',
      NaN,
      Infinity,
      true,
      null,
      [1],
    ]) {
      expect(usageValue(value)).toHaveProperty('problem');
    }
  });

  it('accepts the range as JSON numbers and plain decimal strings, exactly', () => {
    expect(usageValue(0)).toEqual({ scaled: 0n });
    expect(usageValue(-0)).toEqual({ scaled: 0n });
    expect(usageValue('0.0001')).toEqual({ scaled: 1n });
    expect(usageValue(2.5)).toEqual({ scaled: 25_000n });
    expect(usageValue('12.50')).toEqual({ scaled: 125_000n });
    expect(usageValue(1_000_000_000)).toEqual({ scaled: 10_000_000_000_000n });
    expect(usageValue('999999999.9999')).toEqual({ scaled: 9_999_999_999_999n });
  });

  it('agrees with the number as a decimal for every value of the range with up to 4 decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10_000_000_000_000n }), (scaled) => {
        const text = `${scaled / 10_000n}.${(scaled % 10_000n).toString().padStart(4, '0')}`;
        expect(usageValue(text)).toEqual({ scaled });
        expect(usageValue(Number(text))).toEqual({ scaled });
      }),
    );
  });
});
