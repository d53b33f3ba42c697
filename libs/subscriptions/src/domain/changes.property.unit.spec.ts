import fc from 'fast-check';
import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { decideBillDue } from './billing-decisions';
import { nextDue } from './billing';
import { ChangePrices, decideChangeItems, RequestedItemChange } from './changes';
import { priceOf } from './invoice-composition.arbitraries';
import { ProrationBehavior } from './proration-behavior';
import { BilledLine, ProrationLine, SubscriptionEvent } from './subscription-events';
import { Subscription, SubscriptionState, evolveSubscription, subscriptionEvolver } from './subscription';
import { MONTHLY_ADVANCE, SUBSCRIPTION_ID, created, item, priceFacts } from './subscription.arbitraries';
import { startOfDayIn } from './time-zone';

/**
 * A change's proration against independent oracles: the days left counted on Date objects, each share
 * rounded half away from zero with exact integer arithmetic; a change and its reverse at the same instant
 * net to zero; after changes every item's billed days still tile the term with no gap and no overlap.
 */

const DAY_MS = 86_400_000;
const ZONES = ['UTC', 'Europe/Helsinki', 'America/New_York', 'Asia/Kolkata', 'Pacific/Auckland'];
const meta = (now: Date): CommandMetadata => {
  let next = 0;
  return { now, newId: () => `new-${++next}` };
};
const iso = (day: Date) => day.toISOString().slice(0, 10);
const plusDays = (date: string, days: number) => iso(new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS));
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
/** a × days ÷ n rounded half away from zero, for a ≥ 0: ⌊(2·a·days + n) ÷ 2n⌋. */
const share = (amount: number, days: number, n: number) => (2n * BigInt(amount) * BigInt(days) + BigInt(n)) / (2n * BigInt(n));
const signed = (line: ProrationLine) => (line.kind === 'credit' ? -line.amount : line.amount);

const pricesOf = (oldAmount: number, newAmount: number): ChangePrices =>
  new Map([
    ['price-a', priceOf('Old', 'fee', { unitAmount: oldAmount })],
    ['price-new', priceOf('New', 'fee', { unitAmount: newAmount })],
  ]);
const toNew: RequestedItemChange = { id: 'a', priceId: 'price-new', price: priceFacts({ id: 'price-new', name: 'New' }) };
const back: RequestedItemChange = { id: 'a', priceId: 'price-a', price: priceFacts({ id: 'price-a', name: 'Old' }) };

/** Anchor days 1–28 (so a month later is the same day), any zone; the first month billed in advance at `oldAmount`. */
const scenario = fc.record({
  anchor: fc
    .integer({ min: 0, max: 4 * 365 })
    .map((offset) => iso(new Date(Date.UTC(2024, 0, 1) + offset * DAY_MS)))
    .filter((date) => Number(date.slice(8)) <= 28),
  zone: fc.constantFrom(...ZONES),
  oldAmount: fc.integer({ min: 0, max: 10_000_000 }),
  newAmount: fc.integer({ min: 0, max: 10_000_000 }),
  dayInPeriod: fc.integer({ min: 0, max: 30 }),
  hour: fc.integer({ min: 0, max: 23 }),
});

/** The subscription with its first month billed, and the change's instant: `dayInPeriod` days in (clamped to the month), at `hour` local. */
interface Scenario {
  readonly anchor: string;
  readonly zone: string;
  readonly oldAmount: number;
  readonly dayInPeriod: number;
  readonly hour: number;
}

function billedFirstMonth({ anchor, zone, oldAmount, dayInPeriod, hour }: Scenario) {
  const creation = created({ term: { start: anchor, end: null }, timeZone: zone, items: [item('a', MONTHLY_ADVANCE)] });
  let state: SubscriptionState = foldEvents(subscriptionEvolver, [creation]);
  const due = nextDue(state)!;
  state = decideBillDue(
    { subscriptionId: SUBSCRIPTION_ID, billAt: due.billAt, invoiceId: 'inv-1', amounts: { a: BigInt(oldAmount) } },
    state,
    meta(due.billAt),
  ).reduce(evolveSubscription, state);
  const nextMonth = new Date(`${anchor}T00:00:00Z`);
  nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1);
  const periodDays = daysBetween(anchor, iso(nextMonth));
  const offset = Math.min(dayInPeriod, periodDays - 1);
  const date = plusDays(anchor, offset);
  const now = new Date(startOfDayIn(date, zone).getTime() + hour * 3_600_000);
  return { state: state as Subscription, periodDays, offset, date, now, periodEnd: plusDays(iso(nextMonth), -1) };
}

function changed(
  state: SubscriptionState,
  items: RequestedItemChange[],
  now: Date,
  prices: ChangePrices,
  prorationBehavior: ProrationBehavior = 'create_prorations',
) {
  const events = decideChangeItems(
    { subscriptionId: SUBSCRIPTION_ID, changeId: `change-${now.getTime()}`, items, effective: 'now', prorationBehavior },
    state,
    meta(now),
    prices,
  );
  return foldEvents(subscriptionEvolver, events as SubscriptionEvent[], state) as Subscription;
}

describe('changes: properties', () => {
  it('old credit + new charge at any day = the new price over the days left − the old price over them, each rounded once', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const { state, periodDays, offset, date, now, periodEnd } = billedFirstMonth(input);
        const after = changed(state, [toNew], now, pricesOf(input.oldAmount, input.newAmount));
        const left = periodDays - offset;
        const [credit, charge] = after.pendingProrations ?? [];
        expect(credit).toMatchObject({ kind: 'credit', period: { start: date, end: periodEnd }, days: left, daysInFullPeriod: periodDays });
        expect(charge).toMatchObject({ kind: 'charge', period: { start: date, end: periodEnd }, days: left, daysInFullPeriod: periodDays });
        expect(BigInt(signed(credit) + signed(charge))).toBe(share(input.newAmount, left, periodDays) - share(input.oldAmount, left, periodDays));
      }),
      { numRuns: 300 },
    );
  });

  it('a change and its reverse at the same instant net to zero (prices and quantities)', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 2, max: 50 }), (input, quantity) => {
        const { state, now } = billedFirstMonth(input);
        const prices = pricesOf(input.oldAmount, input.newAmount);
        const there = changed(state, [toNew], now, prices);
        const andBack = changed(there, [back], now, prices);
        expect((andBack.pendingProrations ?? []).reduce((sum, line) => sum + signed(line), 0)).toBe(0);
        const more = changed(changed(state, [{ id: 'a', quantity }], now, prices), [{ id: 'a', quantity: 1 }], now, prices);
        expect((more.pendingProrations ?? []).reduce((sum, line) => sum + signed(line), 0)).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('after a change and an added item, every item’s billed days (pieces and proration charges) tile from its first day: no gap, no overlap', () => {
    fc.assert(
      fc.property(scenario, fc.constantFrom<ProrationBehavior>('create_prorations', 'none'), (input, behavior) => {
        const { state, now, date, periodEnd, offset } = billedFirstMonth(input);
        const prices = pricesOf(input.oldAmount, input.newAmount);
        const added: RequestedItemChange = { priceId: 'price-new', price: priceFacts({ id: 'price-new', name: 'New' }), quantity: 2 };
        let current: SubscriptionState = changed(state, [toNew, added], now, prices, behavior);
        const addedId = (current as Subscription).items[1].id;
        const billed: BilledLine[] = [];
        const prorated = [...((current as Subscription).pendingProrations ?? [])];
        for (let i = 0; i < 6; i++) {
          const due = nextDue(current)!;
          const amounts = Object.fromEntries(
            due.charges.map((charge) => [charge.itemId, charge.itemId === 'a' ? BigInt(input.newAmount) : 2n * BigInt(input.newAmount)]),
          );
          const events = decideBillDue({ subscriptionId: SUBSCRIPTION_ID, billAt: due.billAt, invoiceId: `inv-${i}`, amounts }, current, meta(due.billAt));
          for (const event of events) if (event.type === 'SubscriptionBilled') billed.push(...event.data.lines);
          current = events.reduce(evolveSubscription, current);
        }
        const covered = (itemId: string) => {
          const pieces = billed.filter((line) => line.itemId === itemId).map((line) => line.period!);
          const charged = prorated.filter((line) => line.itemId === itemId && line.kind === 'charge').map((line) => line.period);
          return [...pieces, ...charged].sort((a, b) => (a.start < b.start ? -1 : 1));
        };
        const tiles = (periods: { start: string; end: string }[], first: string) => {
          expect(periods[0].start).toBe(first);
          periods.slice(1).forEach((period, i) => expect(period.start).toBe(plusDays(periods[i].end, 1)));
        };
        // The changed item: its first month (billed before the change), then its pieces; its proration lines re-bill days of the first month as a price difference.
        tiles([{ start: input.anchor, end: periodEnd }, ...billed.filter((line) => line.itemId === 'a').map((line) => line.period!)], input.anchor);
        // The added item: from the change's day; with none from its next period (free until then) unless the change's day starts one.
        tiles(covered(addedId), behavior === 'none' && offset > 0 ? plusDays(periodEnd, 1) : date);
      }),
      { numRuns: 150 },
    );
  });
});
