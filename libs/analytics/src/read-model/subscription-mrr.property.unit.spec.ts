import fc from 'fast-check';
import { PriceState } from '@billing/catalog';
import { SubscriptionState } from '@billing/subscriptions';
import { subscriptionMrr } from './subscription-mrr';

/**
 * subscriptionMrr against an oracle written from the README's definition alone, in plain numbers (every amount here
 * stays far below 2^53): which subscriptions have MRR, which discounts are recurring and apply on the day, the
 * discounts taken in order off each line's full period (a percentage per line rounded half up, an amount spread by
 * largest remainder, earlier line first on ties), then each line's rest as a month, rounded half up.
 */
const DAY = '2026-06-15';
const UNITS = { month: [1, 1], year: [1, 12], week: [52, 12] } as const;

interface Line {
  readonly unitAmount: number;
  readonly quantity: number;
  readonly termUnit: keyof typeof UNITS;
  readonly termCount: number;
  readonly productId: string;
}
interface Terms {
  readonly percentOff: number | null;
  readonly amountOff: number | null;
  readonly duration: 'once' | 'repeating' | 'forever';
  readonly productIds: string[] | null;
  readonly minimumAmount: number | null;
  readonly start: string;
  readonly end: string | null;
  readonly endedAt: string | null;
  readonly currency: string | null;
}

const halfUp = (numerator: number, denominator: number) => Math.floor((2 * numerator + denominator) / (2 * denominator));

function oracle(status: string, inTrial: boolean, lines: readonly Line[], own: readonly Terms[], customer: readonly Terms[], customerDay: string): number {
  if (!(status === 'active' || (status === 'cancelled' && !inTrial))) return 0;
  const left = lines.map((line) => line.unitAmount * line.quantity);
  const subtotal = left.reduce((a, b) => a + b, 0);
  const counts = (terms: Terms, day: string) =>
    terms.duration !== 'once' &&
    terms.endedAt === null &&
    terms.start <= day &&
    (terms.end === null || day <= terms.end) &&
    (terms.minimumAmount === null || subtotal >= terms.minimumAmount);
  const applying = [
    ...own.filter((terms) => counts(terms, DAY)),
    ...customer.filter((terms) => counts(terms, customerDay) && (terms.currency === null || terms.currency === 'EUR')),
  ];
  for (const terms of applying) {
    const eligible = lines.map((line, i) => i).filter((i) => left[i] > 0 && (terms.productIds === null || terms.productIds.includes(lines[i].productId)));
    if (eligible.length === 0) continue;
    if (terms.percentOff !== null) {
      for (const i of eligible) left[i] -= halfUp(left[i] * Math.round(terms.percentOff * 100), 10_000);
      continue;
    }
    const total = eligible.reduce((sum, i) => sum + left[i], 0);
    const off = Math.min(terms.amountOff!, total);
    const shares = eligible.map((i, k) => ({ i, k, floor: Math.floor((off * left[i]) / total), remainder: (off * left[i]) % total }));
    let rest = off - shares.reduce((sum, share) => sum + share.floor, 0);
    for (const share of [...shares].sort((a, b) => b.remainder - a.remainder || a.k - b.k)) {
      if (rest === 0) break;
      share.floor += 1;
      rest -= 1;
    }
    for (const share of shares) left[share.i] -= share.floor;
  }
  return lines.reduce((sum, line, i) => {
    const [times, per] = UNITS[line.termUnit];
    return sum + halfUp(left[i] * times, per * line.termCount);
  }, 0);
}

const dates = fc.constantFrom('2026-01-01', '2026-06-14', DAY, '2026-06-16', '2026-12-31');
const terms = (currencies: readonly (string | null)[]) =>
  fc.record({
    percentOff: fc.option(
      fc.integer({ min: 1, max: 10_000 }).map((hundredths) => hundredths / 100),
      { nil: null },
    ),
    amountOff: fc.integer({ min: 1, max: 3_000_000 }),
    duration: fc.constantFrom('once' as const, 'repeating' as const, 'forever' as const),
    productIds: fc.option(fc.subarray(['p1', 'p2'], { minLength: 1 }), { nil: null }),
    minimumAmount: fc.option(fc.integer({ min: 0, max: 4_000_000 }), { nil: null }),
    start: dates,
    end: fc.option(dates, { nil: null }),
    endedAt: fc.option(fc.constant('2026-05-01T00:00:00.000Z'), { nil: null }),
    currency: fc.constantFrom(...currencies),
  });
const asTerms = (generated: { percentOff: number | null; amountOff: number }[]): Terms[] =>
  generated.map((g) => ({ ...(g as unknown as Terms), amountOff: g.percentOff === null ? g.amountOff : null }));
const line = fc.record({
  unitAmount: fc.integer({ min: 0, max: 200_000 }),
  quantity: fc.integer({ min: 1, max: 20 }),
  termUnit: fc.constantFrom('month' as const, 'year' as const, 'week' as const),
  termCount: fc.integer({ min: 1, max: 3 }),
  productId: fc.constantFrom('p1', 'p2'),
});

describe('subscriptionMrr against an oracle', () => {
  it("given any items, statuses, and the subscription's and its customer's discounts, then exactly the oracle's MRR", () => {
    fc.assert(
      fc.property(
        fc.constantFrom('active', 'cancelled', 'trialing', 'paused', 'ended'),
        fc.boolean(),
        fc.array(line, { minLength: 1, maxLength: 4 }),
        fc.array(terms([null]), { maxLength: 3 }),
        fc.array(terms([null, 'EUR', 'USD']), { maxLength: 3 }),
        dates,
        (status, inTrial, lines, own, customer, customerDay) => {
          const prices = new Map(
            lines.map(
              (l, i) =>
                [
                  `price-${i}`,
                  { status: 'active', id: `price-${i}`, priceModel: 'fee', pricing: { eur: { unitAmount: l.unitAmount } } } as unknown as PriceState,
                ] as const,
            ),
          );
          const state = {
            status,
            currency: 'eur',
            trial: inTrial ? { start: '2026-06-01', end: '2026-07-01', announcedAt: null, endedAt: null } : null,
            items: lines.map((l, i) => ({
              id: `item-${i}`,
              priceId: `price-${i}`,
              quantity: String(l.quantity),
              product: { id: l.productId },
              schedule: { purchase: 'recurring', billingTiming: i % 2 === 0 ? 'advance' : 'arrears', termCount: l.termCount, termUnit: l.termUnit },
            })),
            discounts: asTerms(own),
          } as unknown as SubscriptionState;
          const mrr = subscriptionMrr(state, prices, DAY, { discounts: asTerms(customer) as never, day: customerDay });
          expect(Number(mrr)).toBe(oracle(status, inTrial, lines, asTerms(own), asTerms(customer), customerDay));
        },
      ),
      { numRuns: 500 },
    );
  });
});
