import fc from 'fast-check';
import { divideRoundingHalfAwayFromZero } from '@billing/shared-kernel';
import { entryArb, modelArb, quantityArb } from '../../../../test/catalog/catalog.arbitraries';
import { chargeLines, componentLabel, versionShareLines } from './charge-lines';
import { priceComponents } from './pricing';

const ONE = 10_000n;
/** The oracle of an invoice line: its gross from its own figures, exact rationals rounded half up (never negative here). */
const gross = (unitAmount: bigint, quantity: bigint) => (unitAmount * quantity * 2n + ONE) / (2n * ONE);

/** A price at a quantity, and a share of it billed: round(P × part ÷ whole), as pro-rating and price versions bill. */
const scenario = modelArb.chain((model) =>
  fc.tuple(
    fc.constant(model),
    entryArb(model),
    quantityArb(),
    fc.integer({ min: 1, max: 31 }).chain((whole) => fc.tuple(fc.integer({ min: 0, max: whole }), fc.constant(whole))),
  ),
);

describe('chargeLines', () => {
  it('issue 20 #12: the lines of a share add up to round(P × part ÷ whole), and each line is unitAmount × its real quantity − discount', () => {
    fc.assert(
      fc.property(scenario, ([model, entry, quantity, [part, whole]]) => {
        const components = priceComponents(model, entry, quantity.scaled);
        const price = components.reduce((sum, c) => sum + c.amount, 0n);
        const billed = divideRoundingHalfAwayFromZero(price * BigInt(part), BigInt(whole));
        const lines = chargeLines(components, billed);
        expect(lines.reduce((sum, line) => sum + line.amount, 0n)).toBe(billed);
        for (const line of lines) {
          const lineGross = gross(line.component.unitAmount, line.component.quantity);
          expect(line.amount).toBe(lineGross - line.discount);
          expect(line.discount).toBeGreaterThanOrEqual(0n);
          expect(line.discount).toBeLessThanOrEqual(lineGross);
        }
        if (part === whole) expect(lines.every((line) => line.discount === 0n)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('issue 20 #12: per price version, the lines add up to round(P_v(Q) × q_v ÷ Q), each unitAmount × its real quantity − discount; a fee price of whole units shows each version its own quantity', () => {
    const versions = modelArb.chain((model) =>
      fc.tuple(fc.constant(model), entryArb(model), entryArb(model), quantityArb(), fc.double({ min: 0, max: 1, noNaN: true })),
    );
    fc.assert(
      fc.property(versions, ([model, first, second, quantity, split]) => {
        const total = quantity.scaled;
        const firstShare = BigInt(Math.floor(Number(total) * split));
        for (const [entry, share] of [
          [first, firstShare],
          [second, total - firstShare],
        ] as const) {
          const componentsAt = (q: bigint) => priceComponents(model, entry, q);
          const price = componentsAt(total).reduce((sum, c) => sum + c.amount, 0n);
          const billed = total === 0n ? price : divideRoundingHalfAwayFromZero(price * share, total);
          const lines = versionShareLines(componentsAt, total, share, billed);
          expect(lines.reduce((sum, line) => sum + line.amount, 0n)).toBe(billed);
          for (const line of lines) expect(line.amount).toBe(gross(line.component.unitAmount, line.component.quantity) - line.discount);
          if (model === 'fee' && total % ONE === 0n)
            expect(lines).toEqual([{ component: expect.objectContaining({ quantity: share }), discount: 0n, amount: billed }]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('splits by largest remainder: 100 of 3 equal components of 50 billed as 34, 33, 33', () => {
    const component = { kind: 'units' as const, tier: null, quantity: 5n * ONE, unitAmount: 10n, amount: 50n };
    expect(chargeLines([component, component, component], 100n).map((line) => [line.amount, line.discount])).toEqual([
      [34n, 16n],
      [33n, 17n],
      [33n, 17n],
    ]);
  });

  it('refuses a share outside 0 to the whole price (a programming error)', () => {
    const component = { kind: 'units' as const, tier: null, quantity: ONE, unitAmount: 10n, amount: 10n };
    expect(() => chargeLines([component], 11n)).toThrow(RangeError);
    expect(() => chargeLines([component], -1n)).toThrow(RangeError);
  });

  it('labels tiers with their range, flat amounts and packages', () => {
    const [first, second, flat] = priceComponents(
      'graduated',
      {
        tiers: [
          { upTo: 100, unitAmount: 5, flatAmount: 0 },
          { upTo: null, unitAmount: 2, flatAmount: 300 },
        ],
      },
      1_500_000n,
    );
    expect([componentLabel(first), componentLabel(flat), componentLabel(second)]).toEqual([
      'tier 1 (0–100)',
      'tier 2 (over 100) flat amount',
      'tier 2 (over 100)',
    ]);
    expect(componentLabel(priceComponents('package', { packageSize: 10, packageAmount: 1 }, ONE)[0])).toBe('started packages');
    expect(componentLabel(priceComponents('fee', { unitAmount: 1 }, ONE)[0])).toBe('');
  });
});
