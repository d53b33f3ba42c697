import fc from 'fast-check';
import { ExistingPrice, PriceModel, PricingEntry } from '@billing/catalog';
import { addDays, foldEvents } from '@billing/shared-kernel';
import {
  addMonths,
  Aggregation,
  attributeUsage,
  BillableMetric,
  decideAdvanceSubscription,
  decideAdvanceTrial,
  decideBillDue,
  DueBilling,
  InvoiceComposition,
  ItemSchedule,
  LAST_CALENDAR_DATE,
  minDate,
  nextDue,
  startOfDayIn,
  Subscription,
  SubscriptionEvent,
  subscriptionEvolver,
  SubscriptionItem,
  SubscriptionState,
} from '../domain';
import { created, item } from '../domain/subscription.arbitraries';
import { currencyVersions, periodInstants, ratePeriodUsage, StoredPriceVersion } from '../usage/period-rating';
import { BillingSources, composeDue, composeUpcoming } from './invoice-inputs';

/**
 * Preview = actual, without a database: the world is plain data (prices with
 * the instants their versions took effect, usage events with the instants
 * they were received), and BillingSources at an instant answer what the
 * database would hold then. The billing engine is simulated with its own
 * deciders (nextDue, decideAdvanceSubscription, composeDue, decideBillDue),
 * on time: each billing at its billAt, seeing the world as of then. The
 * preview at t is composeUpcoming on the state the engine left at t.
 */

const SUBSCRIPTION_ID = 'sub-1';
const TIME_ZONES = ['UTC', 'Europe/Helsinki', 'America/New_York', 'Australia/Sydney', 'Pacific/Chatham', 'Asia/Kolkata'];
const DAY_MS = 86_400_000;

interface PriceHistory {
  readonly id: string;
  readonly model: PriceModel;
  /** In order; the first in force from before the subscription starts. */
  readonly versions: readonly { readonly effectiveAt: number; readonly entry: PricingEntry }[];
}
interface UsageEvent {
  readonly id: string;
  readonly at: number;
  readonly receivedAt: number;
  readonly value: number;
}
interface World {
  readonly created: SubscriptionEvent;
  readonly prices: ReadonlyMap<string, PriceHistory>;
  readonly metric: BillableMetric;
  readonly events: readonly UsageEvent[];
}

/** What the database holds at `at`: price versions that took effect by then, events received by then. */
function sourcesAt(world: World, at: number): BillingSources {
  const versionsOf = (price: PriceHistory): StoredPriceVersion[] =>
    price.versions.filter((v) => v.effectiveAt <= at).map((v) => ({ effectiveAt: new Date(v.effectiveAt), pricing: { eur: v.entry } }));
  return {
    // These subscriptions name no customer record: no customer discounts.
    customerDiscounts: async () => [],
    prices: async (ids) =>
      new Map(
        ids.flatMap((id) => {
          const price = world.prices.get(id)!;
          const current = versionsOf(price).at(-1)!;
          return [[id, { name: `Price ${id}`, priceModel: price.model, pricing: current.pricing } as unknown as ExistingPrice]];
        }),
      ),
    usage: async (subscriptionItem, period) => {
      const { from, to } = periodInstants({ timeZone: (world.created.data as { timeZone: string }).timeZone }, period);
      const price = world.prices.get(subscriptionItem.priceId)!;
      const records = world.events
        .filter((e) => e.receivedAt <= at && e.at >= from.getTime() && e.at < to.getTime())
        .map((e) => ({ at: e.at, id: e.id, value: recordValue(world.metric.aggregation, e.value) }));
      const versions = versionsOf(price);
      const shares = attributeUsage(world.metric.aggregation, records, currencyVersions(versions, 'eur'));
      return ratePeriodUsage(subscriptionItem, 'eur', { metric: world.metric, priceModel: price.model, versions, shares }, from, to);
    },
  };
}

function recordValue(aggregation: Aggregation, value: number): bigint | string | null {
  if (aggregation === 'count') return null;
  if (aggregation === 'unique_count') return JSON.stringify(`u${value % 5}`);
  return BigInt(value) * 10_000n;
}

function composed(result: InvoiceComposition): Extract<InvoiceComposition, { kind: 'composed' }> {
  if (result.kind !== 'composed') throw new Error(`${result.itemId}: ${result.error.message}`);
  return result;
}

/**
 * The engine on time from `state`: every due instant up to `until` billed at
 * its billAt, seeing the world as of `seenAt(billAt)`. `stopAtInvoice`:
 * return at the first invoice instead.
 */
async function runEngine(
  world: World,
  state: SubscriptionState,
  until: number,
  seenAt: (billAt: number) => number,
  stopAtInvoice: boolean,
): Promise<{ state: SubscriptionState; invoice: { due: DueBilling; composition: Extract<InvoiceComposition, { kind: 'composed' }> } | null }> {
  for (let n = 0; ; n++) {
    const due = nextDue(state);
    if (due === null || due.billAt.getTime() > until) return { state, invoice: null };
    const meta = { now: due.billAt, newId: () => `id-${n}` };
    // As the engine: a trial whose end has come is recorded before what is billed at that instant.
    state = foldEvents(subscriptionEvolver, decideAdvanceTrial({ subscriptionId: SUBSCRIPTION_ID }, state, meta), state);
    if (due.charges.length === 0) {
      state = foldEvents(subscriptionEvolver, decideAdvanceSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, meta), state);
      continue;
    }
    const composition = composed(await composeDue(state as Subscription, due, sourcesAt(world, seenAt(due.billAt.getTime())), () => undefined));
    if (stopAtInvoice) return { state, invoice: { due, composition } };
    const { amounts, usage, corrections, usageLines } = composition;
    const billed = decideBillDue(
      { subscriptionId: SUBSCRIPTION_ID, billAt: due.billAt, invoiceId: `inv-${n}`, amounts, usage, corrections, bookAt: null, usageLines },
      state,
      meta,
    );
    state = foldEvents(subscriptionEvolver, billed, state);
  }
}

// ---------------------------------------------------------------- arbitraries

const entryOf = (model: PriceModel): fc.Arbitrary<PricingEntry> => {
  switch (model) {
    case 'fee':
      return fc.record({ unitAmount: fc.integer({ min: 0, max: 50_000 }) });
    case 'package':
      return fc.record({ packageSize: fc.integer({ min: 1, max: 10 }), packageAmount: fc.integer({ min: 0, max: 50_000 }) });
    default:
      return fc
        .array(
          fc.record({ width: fc.integer({ min: 1, max: 20 }), unitAmount: fc.integer({ min: 0, max: 5_000 }), flatAmount: fc.integer({ min: 0, max: 5_000 }) }),
          {
            minLength: 1,
            maxLength: 3,
          },
        )
        .map((steps) => {
          let upTo = 0;
          return {
            tiers: steps.map((s, i) => ({ upTo: i === steps.length - 1 ? null : (upTo += s.width), unitAmount: s.unitAmount, flatAmount: s.flatAmount })),
          };
        });
  }
};

const START = Date.parse('2026-01-01T00:00:00Z');
const HORIZON = 200 * DAY_MS;

const priceHistory = (id: string) =>
  fc.constantFrom<PriceModel>('fee', 'volume', 'graduated', 'package').chain((model) =>
    fc.array(fc.tuple(fc.integer({ min: 0, max: HORIZON }), entryOf(model)), { minLength: 1, maxLength: 3 }).map((versions): PriceHistory => {
      // The first version is in force from before the subscription; the others take effect at random instants.
      const timed = versions.map(([offset, entry], i) => ({ effectiveAt: i === 0 ? START - DAY_MS : START + offset, entry }));
      return { id, model, versions: [timed[0], ...timed.slice(1).sort((a, b) => a.effectiveAt - b.effectiveAt)] };
    }),
  );

const FIXED: ItemSchedule[] = [
  { purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'advance' },
  { purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'arrears' },
  { purchase: 'recurring', termCount: 1, termUnit: 'week', billingTiming: 'advance' },
  { purchase: 'recurring', termCount: 3, termUnit: 'month', billingTiming: 'arrears' },
  { purchase: 'one_time' },
];
const USAGE: ItemSchedule = { purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'event_based', metricCode: 'm' } as ItemSchedule;

const anchor = fc.tuple(fc.integer({ min: 0, max: 2 }), fc.oneof(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 29, max: 31 }))).map(([month, day]) => {
  const first = `2026-${String(month + 1).padStart(2, '0')}-01`;
  const last = Number(addDays(addMonths(first, 1), -1).slice(8));
  return `2026-${String(month + 1).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`;
});

const world = fc
  .record({
    timeZone: fc.constantFrom(...TIME_ZONES),
    start: anchor,
    termMonths: fc.option(fc.integer({ min: 1, max: 4 })),
    autoRenewal: fc.boolean(),
    // A trial: its end is the first day billed and the anchor (kept within a termed subscription's first term).
    trialDays: fc.option(fc.integer({ min: 1, max: 45 })),
    fixed: fc.array(fc.tuple(fc.constantFrom(...FIXED), fc.constantFrom('1', '2', '2.5', '7')), { minLength: 1, maxLength: 3 }),
    metered: fc.boolean(),
    aggregation: fc.constantFrom<Aggregation>('count', 'sum', 'max', 'unique_count'),
    events: fc.array(
      fc.record({
        at: fc.integer({ min: 0, max: HORIZON }),
        // Mostly received at once, sometimes days late (a late one may land in a period billed already: a correction).
        delay: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3_600_000 }), fc.integer({ min: 0, max: 10 * DAY_MS })),
        value: fc.integer({ min: 0, max: 100 }),
      }),
      { maxLength: 25 },
    ),
  })
  .chain((shape) => {
    const items: SubscriptionItem[] = shape.fixed.map(([schedule, quantity], i) => ({ ...item(`i${i}`, schedule), quantity, taxCode: 'VAT' }));
    if (shape.metered) items.push({ ...item('usage', USAGE), taxCode: 'VAT' });
    return fc.tuple(fc.constant(shape), fc.constant(items), fc.tuple(...items.map((i) => priceHistory(i.priceId))));
  })
  .map(([shape, items, histories]): World => {
    const term = { start: shape.start, end: shape.termMonths === null ? null : addDays(addMonths(shape.start, shape.termMonths), -1) };
    const first = startOfDayIn(shape.start, shape.timeZone).getTime();
    return {
      created: created({
        term,
        autoRenewal: shape.autoRenewal,
        timeZone: shape.timeZone,
        items,
        ...(shape.trialDays === null ? {} : { trialEnd: minDate(addDays(shape.start, shape.trialDays), term.end ?? LAST_CALENDAR_DATE) }),
      }),
      prices: new Map(histories.map((h) => [h.id, h])),
      metric: {
        status: 'active',
        id: 'm',
        code: 'm',
        name: 'Metric m',
        aggregation: shape.aggregation,
        field: shape.aggregation === 'count' ? null : 'v',
        createdAt: '',
      },
      events: shape.events.map((e, i) => ({ id: `e${i}`, at: first + e.at, receivedAt: first + e.at + e.delay, value: e.value })),
    };
  });

/** The state the engine left at t (it bills every instant up to t on time), and the preview composed then. */
async function previewAt(w: World, t: number) {
  const initial = foldEvents(subscriptionEvolver, [w.created]);
  const { state } = await runEngine(w, initial, t, (billAt) => billAt, false);
  return { state, preview: await composeUpcoming(state, sourcesAt(w, t), () => undefined) };
}

const instant = fc.integer({ min: 0, max: HORIZON });
/** Far enough for any next invoice of these worlds (a quarter's arrears after a late t); renewals alone never reach one. */
const NEVER = START + HORIZON + 400 * DAY_MS;

describe('the upcoming invoice (properties)', () => {
  it('preview at t = the invoice the engine composes at billAt from the world as of t (usage received by t, prices in force at t)', async () => {
    await fc.assert(
      fc.asyncProperty(world, instant, async (w, offset) => {
        const t = START + offset;
        const { state, preview } = await previewAt(w, t);
        const { invoice } = await runEngine(w, state, NEVER, () => t, true);
        expect(preview === null).toBe(invoice === null);
        if (preview === null || invoice === null) return;
        expect(preview.due).toEqual(invoice.due);
        expect(preview.composed).toEqual(invoice.composition);
      }),
      { numRuns: 150 },
    );
  });

  it('preview at t = the invoice booked at billAt when nothing arrives or takes effect in between; its usage counts what was received by t', async () => {
    let unchanged = 0;
    await fc.assert(
      fc.asyncProperty(world, instant, async (w, offset) => {
        const t = START + offset;
        const { state, preview } = await previewAt(w, t);
        const { invoice } = await runEngine(w, state, NEVER, (billAt) => billAt, true);
        if (preview === null || invoice === null) return expect(preview === null).toBe(invoice === null);
        const billAt = invoice.due.billAt.getTime();
        expect(preview.due.billAt.getTime()).toBe(billAt);
        const changed =
          w.events.some((e) => e.receivedAt > t && e.receivedAt <= billAt) ||
          [...w.prices.values()].some((p) => p.versions.some((v) => v.effectiveAt > t && v.effectiveAt <= billAt));
        if (!changed) {
          unchanged++;
          expect(preview.composed).toEqual(invoice.composition);
        }
        // Independently of the rating: a count metric's previewed quantity is the events received by t in the period.
        for (const charge of preview.composed.usage) {
          if (w.metric.aggregation !== 'count') continue;
          const { from, to } = periodInstants({ timeZone: preview.subscription.timeZone }, charge.period);
          const received = w.events.filter((e) => e.receivedAt <= t && e.at >= from.getTime() && e.at < to.getTime()).length;
          expect(Number(charge.quantity)).toBe(received);
        }
      }),
      { numRuns: 150 },
    );
    // The implication was exercised, not vacuous.
    expect(unchanged).toBeGreaterThan(20);
  });
});
