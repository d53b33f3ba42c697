import fc from 'fast-check';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { foldEvents } from '@billing/shared-kernel';
import { decideBillDue, decideBillFinal, finalBilling, proratedItem } from './billing-decisions';
import { nextDue } from './billing';
import { SubscriptionCancelled, SubscriptionEvent } from './subscription-events';
import { Subscription, subscriptionEvolver } from './subscription';
import { decideCancelSubscription } from './subscription-decisions';
import { MONTHLY_ADVANCE, MONTHLY_ARREARS, SUBSCRIPTION_ID, created, item } from './subscription.arbitraries';

const spec = deciderSpec(subscriptionEvolver);
const FULL = 3100n;
const fold = (...events: SubscriptionEvent[]) => foldEvents(subscriptionEvolver, events) as Subscription;
const both = created({ term: { start: '2026-01-01', end: null }, items: [item('a', MONTHLY_ADVANCE), item('b', MONTHLY_ARREARS)] });
/** The engine's billing of Jan 1: the advance item's January (Jan 1 – Jan 31, 31 days). */
const billedJanuary = decideBillDue(
  { subscriptionId: SUBSCRIPTION_ID, billAt: new Date('2026-01-01T00:00:00Z'), invoiceId: 'inv-jan', amounts: { a: FULL } },
  fold(both),
  metadataAt('2026-01-01T00:00:05.000Z'),
);
const NOW = '2026-01-10T10:00:00.000Z';
const cancelNow =
  (now = NOW) =>
  (state: Parameters<typeof decideCancelSubscription>[1]) =>
    decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID, at: 'now' }, state, metadataAt(now));
const cancelledToday = (cancelAt: string, cancelledAt = NOW): SubscriptionCancelled => ({
  type: 'SubscriptionCancelled',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, cancelAt, cancelledAt, at: 'now' },
});

describe('cancel now: decideCancelSubscription {at: now}', () => {
  it('ends service today (cancelAt today in the subscription’s time zone)', () => {
    spec
      .given([both, ...billedJanuary])
      .when(cancelNow())
      .then([cancelledToday('2026-01-10')]);
    const helsinki = created({ term: { start: '2026-01-01', end: null }, timeZone: 'Europe/Helsinki' });
    spec
      .given([helsinki])
      .when(cancelNow('2026-01-09T22:30:00.000Z'))
      .then([cancelledToday('2026-01-10', '2026-01-09T22:30:00.000Z')]);
  });

  it('brings a cancellation at the period end forward to today', () => {
    const atPeriodEnd: SubscriptionCancelled = {
      ...cancelledToday('2026-01-31', '2026-01-05T00:00:00.000Z'),
      data: { subscriptionId: SUBSCRIPTION_ID, cancelAt: '2026-01-31', cancelledAt: '2026-01-05T00:00:00.000Z' },
    };
    spec
      .given([both, ...billedJanuary, atPeriodEnd])
      .when(cancelNow())
      .then([cancelledToday('2026-01-10')]);
  });

  it('answers nothing new when service ends by today already', () => {
    spec
      .given([both, ...billedJanuary, cancelledToday('2026-01-10', '2026-01-10T08:00:00.000Z')])
      .when(cancelNow())
      .then([]);
  });

  it('refuses an ended subscription (409)', () => {
    spec
      .given([both, ...billedJanuary, cancelledToday('2026-01-10')])
      .when(cancelNow('2026-01-11T00:00:00.000Z'))
      .thenThrows({ kind: 'conflict', code: 'subscription-ended' });
  });
});

describe('cancel now: finalBilling', () => {
  const cancelled = fold(both, ...billedJanuary, cancelledToday('2026-01-10'));

  it('with prorate: the arrears up to today at once and the unused advance days as a credit (3100 × 21 ÷ 31 = 2100)', () => {
    const final = finalBilling(cancelled, new Date(NOW), true);
    expect(final.charges).toEqual([
      { itemId: 'b', kind: 'arrears', billAt: new Date(NOW), period: { start: '2026-01-01', end: '2026-01-10' }, daysUsed: 10, daysInFullPeriod: 31 },
    ]);
    expect(final.prorations).toEqual([
      {
        itemId: 'a',
        kind: 'credit',
        reason: 'cancellation',
        item: proratedItem(item('a', MONTHLY_ADVANCE)),
        period: { start: '2026-01-11', end: '2026-01-31' },
        days: 21,
        daysInFullPeriod: 31,
        fullAmount: 3100,
        amount: 2100,
      },
    ]);
  });

  it('without prorate: the arrears only, no credit', () => {
    expect(finalBilling(cancelled, new Date(NOW), false).prorations).toEqual([]);
  });

  it('cancelled on the last day of the billed period: nothing unused, no credit', () => {
    const lastDay = fold(both, ...billedJanuary, cancelledToday('2026-01-31', '2026-01-31T10:00:00.000Z'));
    expect(finalBilling(lastDay, new Date('2026-01-31T10:00:00.000Z'), true).prorations).toEqual([]);
  });

  it('refuses while billing due by now waits for the engine (409 subscription-billing-pending)', () => {
    const behind = fold(both, cancelledToday('2026-01-10'));
    expect(() => finalBilling(behind, new Date(NOW), true)).toThrow(expect.objectContaining({ code: 'subscription-billing-pending' }));
  });

  it('refuses (409 subscription-billing-pending) a final billing at a time the engine has billed past (the clock moved on meanwhile)', () => {
    const billedFebruary = decideBillDue(
      { subscriptionId: SUBSCRIPTION_ID, billAt: new Date('2026-02-01T00:00:00.000Z'), invoiceId: 'inv-feb', amounts: { a: FULL, b: FULL } },
      fold(both, ...billedJanuary),
      metadataAt('2026-02-01T00:00:00.000Z'),
    );
    const overtaken = fold(both, ...billedJanuary, ...billedFebruary, cancelledToday('2026-01-10'));
    expect(() => finalBilling(overtaken, new Date(NOW), true)).toThrow(expect.objectContaining({ code: 'subscription-billing-pending' }));
  });

  it('within a trial: nothing was billed, nothing to bill', () => {
    const trial = created({
      term: { start: '2026-01-01', end: null },
      trialEnd: '2026-01-15',
      items: [item('a', MONTHLY_ADVANCE), item('b', MONTHLY_ARREARS)],
    });
    expect(finalBilling(fold(trial, cancelledToday('2026-01-10')), new Date(NOW), true)).toEqual({ billAt: new Date(NOW), charges: [], prorations: [] });
  });
});

describe('cancel now: decideBillFinal', () => {
  const given = [both, ...billedJanuary, cancelledToday('2026-01-10')];
  const bill =
    (amounts: Record<string, bigint>, prorate = true, now = NOW) =>
    (state: Parameters<typeof decideBillFinal>[1]) =>
      decideBillFinal({ subscriptionId: SUBSCRIPTION_ID, prorate, invoiceId: 'inv-final', amounts }, state, metadataAt(now));

  it('records the final invoice: the arrears line pro rata (3100 × 10 ÷ 31 = 1000) and the credit, billed at the cancellation', () => {
    spec
      .given(given)
      .when(bill({ b: FULL }))
      .then([
        {
          type: 'SubscriptionBilled',
          schemaVersion: 1,
          data: {
            subscriptionId: SUBSCRIPTION_ID,
            invoiceId: 'inv-final',
            billAt: NOW,
            lines: [
              {
                itemId: 'b',
                kind: 'arrears',
                period: { start: '2026-01-01', end: '2026-01-10' },
                daysUsed: 10,
                daysInFullPeriod: 31,
                fullAmount: 3100,
                amount: 1000,
              },
            ],
            billedAt: NOW,
            prorations: [
              {
                itemId: 'a',
                kind: 'credit',
                reason: 'cancellation',
                item: proratedItem(item('a', MONTHLY_ADVANCE)),
                period: { start: '2026-01-11', end: '2026-01-31' },
                days: 21,
                daysInFullPeriod: 31,
                fullAmount: 3100,
                amount: 2100,
              },
            ],
          },
        },
      ]);
  });

  it('afterwards nothing is left to bill: the subscription ends at midnight', () => {
    const events = bill({ b: FULL })(fold(...given));
    const due = nextDue(fold(...given, ...events))!;
    expect(due).toMatchObject({ charges: [], ends: true, billAt: new Date('2026-01-11T00:00:00Z') });
  });

  it('nothing to bill (no arrears, no credit): no events', () => {
    const advanceOnly = created({ term: { start: '2026-01-01', end: null } });
    const january = decideBillDue(
      { subscriptionId: SUBSCRIPTION_ID, billAt: new Date('2026-01-01T00:00:00Z'), invoiceId: 'inv-jan', amounts: { a: FULL } },
      fold(advanceOnly),
      metadataAt('2026-01-01T00:00:05.000Z'),
    );
    spec
      .given([advanceOnly, ...january, cancelledToday('2026-01-10')])
      .when(bill({}, false))
      .then([]);
  });

  it('refuses amounts that do not match the charges (422) and a subscription not cancelled to end today (409)', () => {
    spec
      .given(given)
      .when(bill({}))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/amounts/b' })] });
    spec
      .given([both, ...billedJanuary])
      .when(bill({ b: FULL }))
      .thenThrows({ kind: 'conflict', code: 'subscription-not-cancelled' });
  });
});

// ---------------------------------------------------------------- property: credit + used part = the period's amount

/** The oracle: a share of an amount, in exact rationals, rounded half away from zero (the amount is never negative here). */
function oracleShare(amount: bigint, days: number, ofDays: number): bigint {
  const numerator = amount * BigInt(days);
  const quotient = numerator / BigInt(ofDays);
  const remainder = numerator - quotient * BigInt(ofDays);
  return remainder * 2n >= BigInt(ofDays) ? quotient + 1n : quotient;
}

describe('cancel now (property)', () => {
  it('the credit is amount × unused ÷ days rounded once; credit + used part = the period’s amount, used part within a cent of its exact share', () => {
    const DAY = 86_400_000;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 * 365 }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 40 }),
        fc.constantFrom('UTC', 'Europe/Helsinki', 'America/New_York'),
        (offset, full, dayInPeriod, timeZone) => {
          const anchor = new Date(Date.UTC(2024, 0, 1) + offset * DAY).toISOString().slice(0, 10);
          const creation = created({ term: { start: anchor, end: null }, timeZone });
          let state = fold(creation);
          const due = nextDue(state)!;
          const billed = decideBillDue(
            { subscriptionId: SUBSCRIPTION_ID, billAt: due.billAt, invoiceId: 'inv', amounts: { a: full } },
            state,
            metadataAt(due.billAt.toISOString()),
          );
          state = fold(creation, ...billed);
          const period = due.charges[0].period!;
          const days = due.charges[0].daysInFullPeriod;
          const used = Math.min(dayInPeriod, days - 1) + 1;
          const now = new Date(due.billAt.getTime() + (used - 1) * DAY + 12 * 3_600_000);
          const cancel = decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID, at: 'now' }, state, metadataAt(now.toISOString()));
          const final = finalBilling(fold(creation, ...billed, ...cancel), now, true);
          const unused = days - used;
          const credit = BigInt(final.prorations[0]?.amount ?? 0);
          expect(final.prorations.length).toBe(unused > 0 ? 1 : 0);
          if (unused > 0) expect(final.prorations[0]).toMatchObject({ days: unused, daysInFullPeriod: days, period: { end: period.end } });
          expect(credit).toBe(oracleShare(full, unused, days));
          const usedPart = full - credit;
          expect(credit + usedPart).toBe(full);
          // The used part is the exact share of the used days give or take the one rounding.
          const exactUsedTimesDays = full * BigInt(used);
          expect(usedPart * BigInt(days) - exactUsedTimesDays <= BigInt(days)).toBe(true);
          expect(exactUsedTimesDays - usedPart * BigInt(days) <= BigInt(days)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
