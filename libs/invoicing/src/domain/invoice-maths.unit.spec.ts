import fc from 'fast-check';
import { DomainError, MAX_AMOUNT, ValidationError } from '@billing/shared-kernel';
import { LineFigures, LineInput, computeLine, computeTotals, negateLine, parseLine, settlementStatus, totalDue } from './invoice-maths';

const line = (overrides: Partial<LineInput> = {}): LineInput => ({
  quantity: 1,
  unitAmount: 1000,
  taxable: false,
  taxRate: 0,
  ...overrides,
});

const figures = (input: LineInput, pointer = '/items/0'): LineFigures => computeLine(parseLine(input, pointer), pointer);

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('line arithmetic', () => {
  it('rounds gross, discount and tax to whole cents half away from zero, step by step', () => {
    // 999 × 1.5 = 1498.5 → 1499; 23.50% of 1499 = 352.265 → 352; 1147 × 0.255 = 292.485 → 292
    expect(figures(line({ unitAmount: 999, quantity: 1.5, discount: { percentage: 23.5 }, taxable: true, taxRate: 0.255 }))).toEqual({
      gross: 1499n,
      discount: 352n,
      amount: 1147n,
      taxAmount: 292n,
    });
    expect(figures(line({ unitAmount: -999, quantity: 1.5 })).gross).toBe(-1499n);
    expect(figures(line({ unitAmount: 1, quantity: 0.5, taxable: true, taxRate: 0.5 }))).toEqual({
      gross: 1n,
      discount: 0n,
      amount: 1n,
      taxAmount: 1n,
    });
  });

  it('applies a fixed discount and no tax on non-taxable lines even with a rate', () => {
    expect(figures(line({ unitAmount: 500, quantity: 3, discount: { amount: 200 }, taxRate: 0.25 }))).toEqual({
      gross: 1500n,
      discount: 200n,
      amount: 1300n,
      taxAmount: 0n,
    });
  });

  it('accepts a discount equal to the gross and a 100% discount', () => {
    expect(figures(line({ discount: { amount: 1000 } })).amount).toBe(0n);
    expect(figures(line({ discount: { percentage: 100 } })).amount).toBe(0n);
    expect(figures(line({ unitAmount: -1000, discount: { amount: -1000 } })).amount).toBe(0n);
  });

  it.each<[string, Partial<LineInput>, string, string?]>([
    ['quantity with 5 decimals', { quantity: 1.23456 }, '/items/3/quantity', 'too-many-decimals'],
    ['negative quantity', { quantity: -1 }, '/items/3/quantity'],
    ['fractional unitAmount', { unitAmount: 10.5 }, '/items/3/unitAmount'],
    ['unitAmount beyond the limit', { unitAmount: 2 ** 53 }, '/items/3/unitAmount', 'amount-out-of-range'],
    ['tax rate with 5 decimals', { taxRate: 0.12345 }, '/items/3/taxCode', 'too-many-decimals'],
    ['tax rate above 1', { taxRate: 1.5 }, '/items/3/taxCode'],
    ['both percentage and amount', { discount: { percentage: 10, amount: 5 } }, '/items/3/discount'],
    ['neither percentage nor amount', { discount: { percentage: null, amount: null } }, '/items/3/discount'],
    ['percentage with 3 decimals', { discount: { percentage: 23.505 } }, '/items/3/discount/percentage', 'too-many-decimals'],
    ['percentage above 100', { discount: { percentage: 100.01 } }, '/items/3/discount/percentage'],
    ['negative percentage', { discount: { percentage: -1 } }, '/items/3/discount/percentage'],
    ['fractional discount amount', { discount: { amount: 1.5 } }, '/items/3/discount/amount'],
    ['negative discount amount', { discount: { amount: -1 } }, '/items/3/discount/amount'],
    ['positive discount on a negative line', { unitAmount: -1000, discount: { amount: 1 } }, '/items/3/discount/amount'],
    ['discount above the gross', { discount: { amount: 1001 } }, '/items/3/discount/amount', 'discount-exceeds-line-amount'],
    ['discount on a zero line', { quantity: 0, discount: { amount: 1 } }, '/items/3/discount/amount', 'discount-exceeds-line-amount'],
    ['gross beyond the limit', { unitAmount: Number.MAX_SAFE_INTEGER, quantity: 1.0001 }, '/items/3', 'amount-out-of-range'],
  ])('rejects %s with a 422 at the field', (_, overrides, pointer, code = 'validation-failed') => {
    const error = errorOf(() => figures(line(overrides), '/items/3'));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.code).toBe(code);
    expect(error.errors.map((e) => e.pointer)).toEqual([pointer]);
  });
});

describe('totals', () => {
  it('sums amounts and per-line rounded taxes', () => {
    const lines = [
      figures(line({ unitAmount: 1, quantity: 0.5, taxable: true, taxRate: 0.5 })),
      figures(line({ unitAmount: 1, quantity: 0.5, taxable: true, taxRate: 0.5 })),
    ];
    // Each line: amount 1 (0.5 → 1), tax 1 (0.5 → 1); not round(2 × 0.5) on the sum.
    expect(computeTotals(lines)).toEqual({ totalExclVat: 2n, totalVat: 2n, totalInclVat: 4n });
    expect(computeTotals([])).toEqual({ totalExclVat: 0n, totalVat: 0n, totalInclVat: 0n });
  });

  it('rejects totals beyond the limit', () => {
    const big = { amount: MAX_AMOUNT, taxAmount: 0n };
    expect(errorOf(() => computeTotals([big, { amount: 1n, taxAmount: 0n }])).code).toBe('amount-out-of-range');
    expect(errorOf(() => computeTotals([{ amount: MAX_AMOUNT, taxAmount: 1n }])).code).toBe('amount-out-of-range');
    expect(errorOf(() => totalDue(-MAX_AMOUNT, 1n)).code).toBe('amount-out-of-range');
    expect(totalDue(1000n, 400n)).toBe(600n);
  });
});

describe('settlementStatus', () => {
  it.each<[bigint, bigint, string]>([
    [1000n, 0n, 'not_settled'],
    [1000n, 400n, 'under_settled'],
    [1000n, 1000n, 'settled'],
    [1000n, 1200n, 'over_settled'],
    [1000n, -100n, 'under_settled'], // net refund: more than the total is outstanding
    [-1000n, 0n, 'not_settled'],
    [-1000n, -400n, 'under_settled'],
    [-1000n, -1000n, 'settled'],
    [-1000n, -1200n, 'over_settled'],
    [-1000n, 100n, 'under_settled'], // wrong sign on a credit note
    [0n, 0n, 'settled'],
    [0n, 5n, 'over_settled'],
    [0n, -5n, 'over_settled'],
  ])('total %p with %p settled is %p', (total, settled, expected) => {
    expect(settlementStatus(total, settled)).toBe(expected);
  });
});

// ---------------------------------------------------------------------------
// Exact oracle: decimal strings → BigInt rationals, its own rounding. Shares no
// code with the implementation; it is what the specification says, literally.
// ---------------------------------------------------------------------------

interface Rational {
  n: bigint;
  d: bigint;
}

const rational = (text: string): Rational => {
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  const n = BigInt(whole + fraction) * (text.startsWith('-') ? -1n : 1n);
  return { n, d: 10n ** BigInt(fraction.length) };
};
const times = (a: Rational, b: Rational): Rational => ({ n: a.n * b.n, d: a.d * b.d });
const int = (value: bigint): Rational => ({ n: value, d: 1n });

/** q = floor(|x|), remainder r: round up when r ≥ ½, then restore the sign. */
function oracleRound(x: Rational): bigint {
  const negative = x.n < 0n;
  const magnitude = negative ? -x.n : x.n;
  const floor = magnitude / x.d;
  const remainder = magnitude - floor * x.d;
  const rounded = remainder * 2n >= x.d ? floor + 1n : floor;
  return negative ? -rounded : rounded;
}

interface OracleLine {
  unitAmount: bigint;
  quantity: string;
  taxRate: string;
  taxable: boolean;
  percentage: string | null;
  /** fraction in permille of the gross, turned into a fixed amount once the gross is known */
  fixedPermille: number | null;
}

type Overflow = 'overflow';
const outOfRange = (value: bigint) => value > MAX_AMOUNT || value < -MAX_AMOUNT;

function oracleGross(l: OracleLine): bigint {
  return oracleRound(times(int(l.unitAmount), rational(l.quantity)));
}

function fixedAmount(l: OracleLine): bigint | null {
  if (l.fixedPermille === null) return null;
  const gross = oracleGross(l);
  return outOfRange(gross) ? 0n : (gross * BigInt(l.fixedPermille)) / 1000n;
}

function oracleLine(l: OracleLine): LineFigures | Overflow {
  const gross = oracleGross(l);
  if (outOfRange(gross)) return 'overflow';
  const fixed = fixedAmount(l);
  const discount = fixed !== null ? fixed : l.percentage !== null ? oracleRound(times(int(gross), times(rational(l.percentage), rational('0.01')))) : 0n;
  const amount = gross - discount;
  const taxAmount = l.taxable ? oracleRound(times(int(amount), rational(l.taxRate))) : 0n;
  return { gross, discount, amount, taxAmount };
}

function oracleInvoice(lines: OracleLine[]): { lines: LineFigures[]; totals: ReturnType<typeof computeTotals> } | Overflow {
  const computed = lines.map(oracleLine);
  if (computed.includes('overflow')) return 'overflow';
  const figures = computed as LineFigures[];
  const totalExclVat = figures.reduce((s, f) => s + f.amount, 0n);
  const totalVat = figures.reduce((s, f) => s + f.taxAmount, 0n);
  const totalInclVat = totalExclVat + totalVat;
  if ([totalExclVat, totalVat, totalInclVat].some(outOfRange)) return 'overflow';
  return { lines: figures, totals: { totalExclVat, totalVat, totalInclVat } };
}

/** The JSON the service would receive for an oracle line. */
function toInput(l: OracleLine): LineInput {
  const fixed = fixedAmount(l);
  return {
    quantity: Number(l.quantity),
    unitAmount: Number(l.unitAmount),
    discount: fixed !== null ? { amount: Number(fixed) } : l.percentage !== null ? { percentage: Number(l.percentage) } : null,
    taxable: l.taxable,
    taxRate: Number(l.taxRate),
  };
}

function implementation(lines: OracleLine[]) {
  const figures = lines.map((l, i) => figures_(toInput(l), `/items/${i}`));
  return { lines: figures, totals: computeTotals(figures) };
}
const figures_ = figures;

function implementationOrOverflow(lines: OracleLine[]) {
  try {
    return implementation(lines);
  } catch (error) {
    if (error instanceof ValidationError && error.code === 'amount-out-of-range') return 'overflow' as const;
    throw error;
  }
}

/** decimal text with `scale` places, at most 15 significant digits so the JSON double is exact */
const decimalText = (maxWhole: bigint, scale: number) =>
  fc
    .tuple(fc.bigInt({ min: 0n, max: maxWhole }), fc.integer({ min: 0, max: 10 ** scale - 1 }))
    .map(([whole, fraction]) => `${whole}.${String(fraction).padStart(scale, '0')}`);

const MAX = MAX_AMOUNT;
const nearOne = fc.integer({ min: 9_990, max: 10_010 }).map((q) => (q / 10_000).toFixed(4));
/** Profiles keep most invoices in range while still reaching the limit from every side. */
const amountsArb = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.bigInt({ min: -100_000n, max: 100_000n }), decimalText(100n, 4)) },
  { weight: 2, arbitrary: fc.tuple(fc.bigInt({ min: -MAX, max: MAX }), fc.oneof(nearOne, decimalText(0n, 4))) },
  { weight: 1, arbitrary: fc.tuple(fc.bigInt({ min: MAX - 1_000_000n, max: MAX }), nearOne) },
  { weight: 1, arbitrary: fc.tuple(fc.bigInt({ min: -MAX, max: -MAX + 1_000_000n }), nearOne) },
  { weight: 2, arbitrary: fc.tuple(fc.bigInt({ min: -100_000n, max: 100_000n }), decimalText(99_999_999_999n, 4)) },
);
const lineArb: fc.Arbitrary<OracleLine> = fc
  .record({
    amounts: amountsArb,
    taxRate: fc.integer({ min: 0, max: 10_000 }).map((r) => (r / 10_000).toFixed(4)),
    taxable: fc.boolean(),
    discountKind: fc.constantFrom('none', 'percentage', 'fixed'),
    percentage: fc.integer({ min: 0, max: 10_000 }).map((p) => (p / 100).toFixed(2)),
    fixedPermille: fc.integer({ min: 0, max: 1000 }),
  })
  .map(({ amounts: [unitAmount, quantity], discountKind, percentage, fixedPermille, ...rest }) => ({
    ...rest,
    unitAmount,
    quantity,
    percentage: discountKind === 'percentage' ? percentage : null,
    fixedPermille: discountKind === 'fixed' ? fixedPermille : null,
  }));
const linesArb = fc.array(lineArb, { maxLength: 8 });

describe('invoice arithmetic against an exact oracle', () => {
  it('line figures and totals equal the oracle, or both overflow (never a wrong number)', () => {
    fc.assert(
      fc.property(linesArb, (lines) => {
        expect(implementationOrOverflow(lines)).toEqual(oracleInvoice(lines));
      }),
      { numRuns: 500 },
    );
  });

  it('totals are the sums of their lines', () => {
    fc.assert(
      fc.property(linesArb, (lines) => {
        const result = implementationOrOverflow(lines);
        fc.pre(result !== 'overflow');
        const sum = (pick: (f: LineFigures) => bigint) => result.lines.reduce((s, f) => s + pick(f), 0n);
        expect(result.totals.totalExclVat).toBe(sum((f) => f.amount));
        expect(result.totals.totalVat).toBe(sum((f) => f.taxAmount));
        expect(result.totals.totalInclVat).toBe(sum((f) => f.amount + f.taxAmount));
        for (const f of result.lines) expect(f.amount).toBe(f.gross - f.discount);
      }),
    );
  });

  it('line order does not change the totals', () => {
    fc.assert(
      fc.property(
        linesArb.chain((lines) => fc.tuple(fc.constant(lines), fc.shuffledSubarray(lines, { minLength: lines.length, maxLength: lines.length }))),
        ([lines, shuffled]) => {
          const a = implementationOrOverflow(lines);
          const b = implementationOrOverflow(shuffled);
          expect(a === 'overflow' ? a : a.totals).toEqual(b === 'overflow' ? b : b.totals);
        },
      ),
    );
  });

  it('a negated line negates every figure exactly, and so the totals', () => {
    fc.assert(
      fc.property(linesArb, (lines) => {
        const result = implementationOrOverflow(lines);
        fc.pre(result !== 'overflow');
        const negated = lines.map((l, i) => computeLine(negateLine(parseLine(toInput(l), `/items/${i}`)), `/items/${i}`));
        negated.forEach((f, i) => {
          const o = result.lines[i];
          expect(f).toEqual({ gross: -o.gross, discount: -o.discount, amount: -o.amount, taxAmount: -o.taxAmount });
        });
        expect(computeTotals(negated)).toEqual({
          totalExclVat: -result.totals.totalExclVat,
          totalVat: -result.totals.totalVat,
          totalInclVat: -result.totals.totalInclVat,
        });
      }),
    );
  });

  it('settlementStatus of a credit note mirrors the invoice it negates', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -MAX, max: MAX }), fc.bigInt({ min: -MAX, max: MAX }), (total, settled) => {
        expect(settlementStatus(-total, -settled)).toBe(settlementStatus(total, settled));
      }),
    );
  });
});
