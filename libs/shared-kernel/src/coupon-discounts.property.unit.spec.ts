import fc from 'fast-check';
import { DiscountableLine, discountAmounts, DiscountTerms } from './coupon-discounts';

/**
 * The oracle, written independently of coupon-discounts.ts: exact rational
 * arithmetic on numbers small enough to be exact in doubles (amounts < 10^7,
 * percentages in hundredths), a percentage rounded half away from zero by
 * comparing twice the remainder, an amount spread by sorting remainders.
 */
function oracle(lines: readonly { amount: number; productId: string | null }[], discounts: readonly DiscountTerms[]): number[] {
  const left = lines.map((line) => Math.max(line.amount, 0));
  const start = [...left];
  for (const discount of discounts) {
    const eligible = left.flatMap((amount, i) =>
      amount > 0 && (discount.productIds === null || (lines[i].productId !== null && discount.productIds.includes(lines[i].productId!))) ? [i] : [],
    );
    if (eligible.length === 0) continue;
    if (discount.percentOff !== null) {
      const hundredths = Math.round(discount.percentOff * 100);
      for (const i of eligible) {
        const numerator = left[i] * hundredths;
        const whole = Math.floor(numerator / 10000);
        const off = 2 * (numerator - whole * 10000) >= 10000 ? whole + 1 : whole;
        left[i] -= off;
      }
    } else {
      const total = eligible.reduce((sum, i) => sum + left[i], 0);
      const off = Math.min(discount.amountOff!, total);
      const floors = eligible.map((i) => Math.floor((off * left[i]) / total));
      const order = eligible.map((i, k) => ({ k, remainder: (off * left[i]) % total })).sort((a, b) => b.remainder - a.remainder || a.k - b.k);
      let rest = off - floors.reduce((a, b) => a + b, 0);
      for (const { k } of order) if (rest-- > 0) floors[k] += 1;
      eligible.forEach((i, k) => (left[i] -= floors[k]));
    }
  }
  return start.map((amount, i) => amount - left[i]);
}

const PRODUCTS = ['p1', 'p2', 'p3'];
const line = fc.record({ amount: fc.integer({ min: -5000, max: 9_999_999 }), productId: fc.option(fc.constantFrom(...PRODUCTS), { nil: null }) });
const appliesTo = fc.option(fc.subarray(PRODUCTS, { minLength: 1 }), { nil: null });
const percent = fc.record({
  percentOff: fc.integer({ min: 1, max: 10000 }).map((hundredths) => hundredths / 100),
  amountOff: fc.constant(null),
  productIds: appliesTo,
});
const amount = fc.record({ percentOff: fc.constant(null), amountOff: fc.integer({ min: 1, max: 20_000_000 }), productIds: appliesTo });
const discount: fc.Arbitrary<DiscountTerms> = fc.oneof(percent, amount);

const asLines = (lines: readonly { amount: number; productId: string | null }[]): DiscountableLine[] =>
  lines.map((entry) => ({ amount: BigInt(entry.amount), productId: entry.productId }));
const eligibleTotal = (lines: readonly { amount: number; productId: string | null }[], productIds: readonly string[] | null) =>
  lines.reduce(
    (sum, entry) => sum + (entry.amount > 0 && (productIds === null || (entry.productId !== null && productIds.includes(entry.productId))) ? entry.amount : 0),
    0,
  );

describe('discountAmounts (the shared coupon maths: subscriptions, customers, draft invoices)', () => {
  it('an amount off adds up to exactly min(amount, eligible total) and takes no line below zero', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), amount, (lines, terms) => {
        const off = discountAmounts(asLines(lines), [terms]).map(Number);
        expect(off.reduce((a, b) => a + b, 0)).toBe(Math.min(terms.amountOff!, eligibleTotal(lines, terms.productIds)));
        off.forEach((taken, i) => {
          expect(taken).toBeGreaterThanOrEqual(0);
          expect(taken).toBeLessThanOrEqual(Math.max(lines[i].amount, 0));
        });
      }),
    );
  });

  it('several discounts, percentages and amounts in any order, match the oracle exactly; the lines of other products are untouched', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), fc.array(discount, { minLength: 1, maxLength: 5 }), (lines, discounts) => {
        const off = discountAmounts(asLines(lines), discounts).map(Number);
        expect(off).toEqual(oracle(lines, discounts));
        lines.forEach((entry, i) => {
          if (entry.amount <= 0) expect(off[i]).toBe(0);
          expect(entry.amount - off[i]).toBeGreaterThanOrEqual(Math.min(entry.amount, 0));
        });
      }),
    );
  });

  it('the order given decides: a percentage then an amount is deterministic, and each order is what the oracle says', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), percent, amount, (lines, p, a) => {
        const forward = discountAmounts(asLines(lines), [p, a]).map(Number);
        expect(discountAmounts(asLines(lines), [p, a]).map(Number)).toEqual(forward);
        expect(forward).toEqual(oracle(lines, [p, a]));
        expect(discountAmounts(asLines(lines), [a, p]).map(Number)).toEqual(oracle(lines, [a, p]));
      }),
    );
  });

  it('given 20 % of 2999, when discounted, then 600 off (599.8 rounded half away from zero); 12.5 % of 4 takes 1 (0.5 rounds up)', () => {
    const terms = { percentOff: 20, amountOff: null, productIds: null };
    expect(discountAmounts([{ amount: 2999n, productId: 'p1' }], [terms])).toEqual([600n]);
    expect(discountAmounts([{ amount: 4n, productId: 'p1' }], [{ ...terms, percentOff: 12.5 }])).toEqual([1n]);
  });

  it('given 1000 off three lines of 1001, 2003 and 3007, then 167, 333 and 500 (the unit left goes to the largest remainder)', () => {
    const lines = [1001n, 2003n, 3007n].map((value) => ({ amount: value, productId: 'p1' }));
    expect(discountAmounts(lines, [{ percentOff: null, amountOff: 1000, productIds: null }])).toEqual([167n, 333n, 500n]);
  });

  it('given a line without a product, then a coupon without appliesTo discounts it and an appliesTo coupon skips it', () => {
    const lines = [
      { amount: 1000n, productId: null },
      { amount: 3000n, productId: 'p1' },
    ];
    expect(discountAmounts(lines, [{ percentOff: 10, amountOff: null, productIds: null }])).toEqual([100n, 300n]);
    expect(discountAmounts(lines, [{ percentOff: null, amountOff: 5000, productIds: ['p1'] }])).toEqual([0n, 3000n]);
  });

  it('given 20 % and then 1000 off the same lines (the README example), then 200 + 167, 401 + 333, 601 + 500 off: lines 634, 1269, 1906', () => {
    const lines = [1001n, 2003n, 3007n].map((value) => ({ amount: value, productId: 'p1' }));
    const off = discountAmounts(lines, [
      { percentOff: 20, amountOff: null, productIds: null },
      { percentOff: null, amountOff: 1000, productIds: null },
    ]);
    expect(lines.map((entry, i) => entry.amount - off[i])).toEqual([634n, 1269n, 1906n]);
  });
});
