import fc from 'fast-check';
import { ValidationError } from '@billing/shared-kernel';
import { entryArb, modelArb, quantityArb, tiersArb } from '../../../../test/catalog/catalog.arbitraries';
import { amountFor, amountForScaledQuantity, priceComponents } from './pricing';
import { FeePricing, PackagePricing, PriceModel, PricingEntry, Tier, TieredPricing } from './types';

// ---- an independent oracle: exact rationals from the decimal text, unit-by-unit walks, its own rounding

interface Rational {
  n: bigint;
  d: bigint;
}
const rat = (n: bigint, d = 1n): Rational => ({ n, d });
const add = (a: Rational, b: Rational): Rational => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
const mul = (a: Rational, b: Rational): Rational => ({ n: a.n * b.n, d: a.d * b.d });
const lessOrEqual = (a: Rational, b: Rational) => a.n * b.d <= b.n * a.d;
const min = (a: Rational, b: Rational) => (lessOrEqual(a, b) ? a : b);
/** Non-negative only: floor, plus one when the remainder is at least half. */
const roundHalfUp = ({ n, d }: Rational) => n / d + (2n * (n % d) >= d ? 1n : 0n);

function parseDecimal(text: string): Rational {
  const [whole, fraction = ''] = text.split('.');
  return rat(BigInt(whole + fraction), 10n ** BigInt(fraction.length));
}

function oracle(model: PriceModel, entry: PricingEntry, quantity: number): bigint {
  const q = parseDecimal(String(quantity));
  const units = Number((q.n + q.d - 1n) / q.d); // started units
  if (model === 'fee') return roundHalfUp(mul(rat(BigInt((entry as FeePricing).unitAmount)), q));
  if (model === 'package') {
    const { packageSize, packageAmount } = entry as PackagePricing;
    let packages = 0n;
    while (!lessOrEqual(q, rat(packages * BigInt(packageSize)))) packages++;
    return packages * BigInt(packageAmount);
  }
  const tiers = (entry as TieredPricing).tiers;
  // unit k (k - 1, k] lies in the first tier with upTo >= k: tier boundaries are whole units
  const tierOfUnit = (k: number) => tiers.findIndex((t) => t.upTo === null || t.upTo >= k);
  if (model === 'volume') {
    const tier = tiers[units === 0 ? 0 : tierOfUnit(units)];
    return roundHalfUp(add(mul(rat(BigInt(tier.unitAmount)), q), rat(BigInt(tier.flatAmount))));
  }
  let total = rat(BigInt(tiers[0].flatAmount)); // the first tier is always reached
  const reached = new Set([0]);
  for (let k = 1; k <= units; k++) {
    const i = tierOfUnit(k);
    const portion = min(rat(1n), add(q, rat(BigInt(-(k - 1)))));
    total = add(total, mul(rat(BigInt(tiers[i].unitAmount)), portion));
    if (!reached.has(i)) total = add(total, rat(BigInt(tiers[i].flatAmount)));
    reached.add(i);
  }
  return roundHalfUp(total);
}

// ---- worked examples

const stripeTiers: Tier[] = [
  { upTo: 5, unitAmount: 500, flatAmount: 0 },
  { upTo: 10, unitAmount: 400, flatAmount: 0 },
  { upTo: null, unitAmount: 300, flatAmount: 0 },
];

describe('amountFor: worked examples', () => {
  // Stripe docs, "Tiered pricing": units 1-5 at $5, 6-10 at $4, 11+ at $3.
  it.each([
    [11, 4800], // 5 x 5 + 5 x 4 + 1 x 3 = $48
    [5, 2500],
    [6, 2900],
    [10, 4500],
    [1, 500],
  ])('graduated (Stripe): %p units cost %p cents', (quantity, cents) => {
    expect(amountFor('graduated', { tiers: stripeTiers }, quantity)).toBe(BigInt(cents));
  });

  it.each([
    [11, 3300], // 11 x $3 = $33
    [5, 2500], // upTo is inclusive: 5 units are still in the first tier
    [6, 2400],
    [5.0001, 2000], // 5.0001 x 400 = 2000.04
  ])('volume (Stripe): %p units cost %p cents', (quantity, cents) => {
    expect(amountFor('volume', { tiers: stripeTiers }, quantity)).toBe(BigInt(cents));
  });

  // Stripe docs, "Package pricing": $5 per 5 units, 8 units = 2 packages.
  it.each([
    [8, 1000],
    [5, 500],
    [0, 0],
    [0.0001, 500], // a started package is a whole package
  ])('package (Stripe, 5 units for $5): %p units cost %p cents', (quantity, cents) => {
    expect(amountFor('package', { packageSize: 5, packageAmount: 500 }, quantity)).toBe(BigInt(cents));
  });

  it('package of 10 for 5000: 10.5 units are two packages', () => {
    expect(amountFor('package', { packageSize: 10, packageAmount: 5000 }, 10.5)).toBe(10000n);
  });

  // Zuplo docs, "Pricing models": 0-1,000 at $0.10, 1,001-10,000 at $0.05, 10,001+ at $0.01; 15,000 units.
  const zuplo: Tier[] = [
    { upTo: 1000, unitAmount: 10, flatAmount: 0 },
    { upTo: 10000, unitAmount: 5, flatAmount: 0 },
    { upTo: null, unitAmount: 1, flatAmount: 0 },
  ];
  it('graduated (Zuplo): 15,000 units cost $600', () => {
    expect(amountFor('graduated', { tiers: zuplo }, 15000)).toBe(60000n);
  });
  it('volume (Zuplo): 15,000 units cost $150', () => {
    expect(amountFor('volume', { tiers: zuplo }, 15000)).toBe(15000n);
  });

  // Lago docs, "Graduated": $1 for the first 100 units, $0.50 for the next 100, then $0.10.
  it('graduated (Lago): 250 units cost 100 + 50 + 5 = $155', () => {
    const lago: Tier[] = [
      { upTo: 100, unitAmount: 100, flatAmount: 0 },
      { upTo: 200, unitAmount: 50, flatAmount: 0 },
      { upTo: null, unitAmount: 10, flatAmount: 0 },
    ];
    expect(amountFor('graduated', { tiers: lago }, 250)).toBe(15500n);
  });

  describe('flat amounts (base fee + overage)', () => {
    // $200 base covering 100 units, then $1 per unit with a $5 flat fee once the overage tier is reached.
    const baseFee: Tier[] = [
      { upTo: 100, unitAmount: 0, flatAmount: 20000 },
      { upTo: null, unitAmount: 100, flatAmount: 500 },
    ];
    it.each([
      [0, 20000], // quantity 0 still reaches the first tier: the base fee
      [100, 20000], // upTo inclusive: the overage tier is not reached
      [100.0001, 20500], // reached: its flat fee + 0.01 cent, which rounds to nothing
      [101, 20600],
      [150, 25500],
    ])('graduated: %p units cost %p cents', (quantity, cents) => {
      expect(amountFor('graduated', { tiers: baseFee }, quantity)).toBe(BigInt(cents));
    });

    it.each([
      [0, 20000],
      [100, 20000],
      [101, 10600], // every unit at the overage tier, plus its flat fee only
    ])('volume: %p units cost %p cents', (quantity, cents) => {
      expect(amountFor('volume', { tiers: baseFee }, quantity)).toBe(BigInt(cents));
    });
  });

  describe('fractional quantities round once, half away from zero', () => {
    it.each([
      [333, 1.5, 500n], // 499.5 -> 500
      [333, 0.5, 167n], // 166.5 -> 167
      [5000, 0.0001, 1n], // 0.5 -> 1
      [4999, 0.0001, 0n], // 0.4999 -> 0
      [1500, 2.25, 3375n],
    ])('fee %p x %p = %p', (unitAmount, quantity, cents) => {
      expect(amountFor('fee', { unitAmount }, quantity)).toBe(cents);
    });

    it('accepts a decimal string quantity', () => {
      expect(amountFor('fee', { unitAmount: 333 }, '1.5')).toBe(500n);
    });

    it('computes exactly beyond 2^53 (range checks are the caller’s)', () => {
      expect(amountFor('fee', { unitAmount: Number.MAX_SAFE_INTEGER }, 3)).toBe(3n * BigInt(Number.MAX_SAFE_INTEGER));
    });
  });

  describe('invalid quantities', () => {
    it('when negative, then a ValidationError at the given pointer', () => {
      expect(() => amountFor('fee', { unitAmount: 1 }, -1, '/items/0/quantity')).toThrow(
        expect.objectContaining({ errors: [{ pointer: '/items/0/quantity', detail: 'must not be negative' }] }),
      );
    });

    it('when more than 4 decimals, then a ValidationError (never silent rounding)', () => {
      expect(() => amountFor('fee', { unitAmount: 1 }, 1.00001)).toThrow(ValidationError);
      expect(() => amountFor('fee', { unitAmount: 1 }, 1.00001)).toThrow(expect.objectContaining({ code: 'too-many-decimals' }));
    });

    it.each([NaN, Infinity])('when %p, then a ValidationError at /quantity', (quantity) => {
      expect(() => amountFor('fee', { unitAmount: 1 }, quantity)).toThrow(
        expect.objectContaining({ errors: [{ pointer: '/quantity', detail: 'must be a decimal number' }] }),
      );
    });

    it('when a negative scaled quantity is passed directly, then a RangeError (a programming error)', () => {
      expect(() => amountForScaledQuantity('fee', { unitAmount: 1 }, -1n)).toThrow(RangeError);
    });
  });

  it.each([
    ['fee', { tiers: stripeTiers }],
    ['package', { unitAmount: 1 }],
    ['volume', { unitAmount: 1 }],
    ['graduated', { tiers: [] }],
  ] as const)('when a %s price holds an entry of another shape, then a TypeError (corrupt state)', (model, entry) => {
    expect(() => amountFor(model, entry as PricingEntry, 1)).toThrow(TypeError);
  });
});

describe('amountFor: properties', () => {
  it('equals the independent rational oracle for every model', () => {
    fc.assert(
      fc.property(
        modelArb.chain((model) => fc.tuple(fc.constant(model), entryArb(model))),
        quantityArb(),
        ([model, entry], quantity) => {
          const amount = amountFor(model, entry, quantity.number);
          expect(typeof amount).toBe('bigint');
          expect(amount).toBe(oracle(model, entry, quantity.number));
          expect(amountForScaledQuantity(model, entry, quantity.scaled)).toBe(amount);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('graduated and volume agree on a one-tier price', () => {
    fc.assert(
      fc.property(tiersArb(1), quantityArb(), (tiers, quantity) => {
        expect(amountFor('graduated', { tiers }, quantity.number)).toBe(amountFor('volume', { tiers }, quantity.number));
      }),
    );
  });

  it.each(['package', 'graduated', 'fee'] as const)('%s is monotone in quantity', (model) => {
    fc.assert(
      fc.property(entryArb(model), quantityArb(), quantityArb(), (entry, a, b) => {
        const [low, high] = a.scaled <= b.scaled ? [a, b] : [b, a];
        expect(amountFor(model, entry, low.number) <= amountFor(model, entry, high.number)).toBe(true);
      }),
    );
  });

  it('quantity 0 costs the flat part only: first tier flatAmount for tiered, 0 for fee and package', () => {
    fc.assert(
      fc.property(
        modelArb.chain((model) => fc.tuple(fc.constant(model), entryArb(model))),
        ([model, entry]) => {
          const flat = 'tiers' in entry ? BigInt(entry.tiers[0].flatAmount) : 0n;
          expect(amountFor(model, entry, 0)).toBe(flat);
        },
      ),
    );
  });

  it('fee is exact and additive on whole quantities', () => {
    fc.assert(
      fc.property(entryArb('fee', Number.MAX_SAFE_INTEGER), fc.nat(10_000), fc.nat(10_000), (entry, a, b) => {
        const fee = (q: number) => amountFor('fee', entry, q);
        expect(fee(a + b)).toBe(fee(a) + fee(b));
        expect(fee(a)).toBe(BigInt((entry as FeePricing).unitAmount) * BigInt(a));
      }),
    );
  });

  it('is within half a minor unit of the exact value (fee)', () => {
    fc.assert(
      fc.property(entryArb('fee'), quantityArb(), (entry, quantity) => {
        const exactTimes10k = BigInt((entry as FeePricing).unitAmount) * quantity.scaled;
        const twiceError = 2n * (amountFor('fee', entry, quantity.number) * 10_000n - exactTimes10k);
        expect(twiceError <= 10_000n && twiceError > -10_000n).toBe(true);
      }),
    );
  });
});

describe('priceComponents: what a quantity is made of, as invoice lines show it', () => {
  const scenario = modelArb.chain((model) => fc.tuple(fc.constant(model), entryArb(model), quantityArb()));
  const ONE = 10_000n;
  /** An invoice line's amount from its own figures: round(unitAmount × quantity), half up (amounts are never negative). */
  const lineAmount = (unitAmount: bigint, scaledQuantity: bigint) => roundHalfUp(rat(unitAmount * scaledQuantity, ONE));

  it('issue 20 #12: the components add up to the oracle amount, each amount is unitAmount × its real quantity, and they hold the whole quantity', () => {
    fc.assert(
      fc.property(scenario, ([model, entry, quantity]) => {
        const components = priceComponents(model, entry, quantity.scaled);
        expect(components.length).toBeGreaterThan(0);
        expect(components.reduce((sum, c) => sum + c.amount, 0n)).toBe(oracle(model, entry, quantity.number));
        for (const c of components) expect(c.amount).toBe(lineAmount(c.unitAmount, c.quantity));
        const unitsHeld = components.filter((c) => c.kind === 'units').reduce((sum, c) => sum + c.quantity, 0n);
        if (model === 'package') {
          const { packageSize } = entry as PackagePricing;
          const [packages] = components;
          // The started packages: enough for the quantity, one package less would not be.
          expect(packages.quantity % ONE).toBe(0n);
          expect(packages.quantity * BigInt(packageSize)).toBeGreaterThanOrEqual(quantity.scaled);
          expect((packages.quantity - ONE) * BigInt(packageSize)).toBeLessThan(quantity.scaled === 0n ? 1n : quantity.scaled);
        } else expect(unitsHeld).toBe(quantity.scaled);
        for (const c of components.filter((c) => c.kind === 'flat')) expect(c.quantity).toBe(ONE);
      }),
      { numRuns: 500 },
    );
  });

  it('issue 20 #12: graduated 4 130 units show one line per tier used, and a line for a flat amount', () => {
    const tiers: Tier[] = [
      { upTo: 1000, unitAmount: 5, flatAmount: 0 },
      { upTo: 4000, unitAmount: 2, flatAmount: 700 },
      { upTo: null, unitAmount: 1, flatAmount: 0 },
    ];
    const shown = priceComponents('graduated', { tiers }, 41_300_000n).map((c) => [
      c.kind,
      c.tier?.number,
      Number(c.quantity) / 10_000,
      Number(c.unitAmount),
      Number(c.amount),
    ]);
    expect(shown).toEqual([
      ['units', 1, 1000, 5, 5000],
      ['units', 2, 3000, 2, 6000],
      ['flat', 2, 1, 700, 700],
      ['units', 3, 130, 1, 130],
    ]);
    expect(amountFor('graduated', { tiers }, 4130)).toBe(11830n);
  });

  it('volume: the whole quantity at its tier, and the tier flat amount; package: the started packages', () => {
    const tiers: Tier[] = [
      { upTo: 10, unitAmount: 500, flatAmount: 0 },
      { upTo: null, unitAmount: 400, flatAmount: 100 },
    ];
    expect(priceComponents('volume', { tiers }, 125_000n)).toEqual([
      { kind: 'units', tier: { number: 2, from: 10, upTo: null }, quantity: 125_000n, unitAmount: 400n, amount: 5000n },
      { kind: 'flat', tier: { number: 2, from: 10, upTo: null }, quantity: ONE, unitAmount: 100n, amount: 100n },
    ]);
    expect(priceComponents('package', { packageSize: 10, packageAmount: 5000 }, 105_000n)).toEqual([
      { kind: 'packages', tier: null, quantity: 2n * ONE, unitAmount: 5000n, amount: 10_000n },
    ]);
  });

  it('quantity 0: a tiered price shows its first flat amount, or its first tier at 0; fee and package show 0', () => {
    expect(priceComponents('graduated', { tiers: [{ upTo: null, unitAmount: 3, flatAmount: 900 }] }, 0n)).toEqual([
      { kind: 'flat', tier: { number: 1, from: 0, upTo: null }, quantity: ONE, unitAmount: 900n, amount: 900n },
    ]);
    expect(priceComponents('volume', { tiers: stripeTiers }, 0n)).toEqual([
      { kind: 'units', tier: { number: 1, from: 0, upTo: 5 }, quantity: 0n, unitAmount: 500n, amount: 0n },
    ]);
    expect(priceComponents('fee', { unitAmount: 7 }, 0n)).toEqual([{ kind: 'units', tier: null, quantity: 0n, unitAmount: 7n, amount: 0n }]);
  });
});
