import fc from 'fast-check';
import { classifyMovement, intervalMovements, monthlyAmount, movementsTotal } from './mrr';

const mrr = fc.integer({ min: 0, max: 10_000_000 });

describe('MRR movements', () => {
  it('given any MRR at both ends of an interval, when classified, then the movements add up to the change exactly', () => {
    fc.assert(fc.property(mrr, mrr, fc.boolean(), (start, end, had) => expect(movementsTotal(classifyMovement(start, end, had))).toBe(end - start)));
  });

  it('given customers over several intervals, when classified, then every interval starts + movements = its end', () => {
    fc.assert(
      fc.property(fc.array(fc.array(mrr, { minLength: 4, maxLength: 4 }), { maxLength: 10 }), (series) => {
        const customers = series.map((values) => ({ mrr: values, hadMrrBefore: values.map(() => false) }));
        intervalMovements(customers, 3).forEach((movements, i) => {
          const sum = (index: number) => series.reduce((total, values) => total + values[index], 0);
          expect(sum(i) + movementsTotal(movements)).toBe(sum(i + 1));
        });
      }),
    );
  });

  it('given an upgrade then a downgrade back, when classified, then expansion and contraction net to zero', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 }), (base, upgrade) => {
        const [up, down] = intervalMovements([{ mrr: [base, base + upgrade, base], hadMrrBefore: [true, true, true] }], 2);
        expect(up).toMatchObject({ expansion: upgrade, contraction: 0 });
        expect(up.expansion + down.contraction).toBe(0);
      }),
    );
  });

  it('given a cancel then a reactivation, when classified, then it is churn then reactivation, never new', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (amount) => {
        const [first, cancel, back] = intervalMovements([{ mrr: [0, amount, 0, amount], hadMrrBefore: [false, true, true, true] }], 3);
        expect(first).toMatchObject({ new: amount });
        expect(cancel).toMatchObject({ churn: -amount, new: 0 });
        expect(back).toMatchObject({ reactivation: amount, new: 0 });
      }),
    );
  });
});

describe('monthlyAmount', () => {
  it.each([
    [1200n, 1, 'month', 1200n],
    [12_000n, 1, 'year', 1000n],
    [1000n, 1, 'week', 4333n], // 1000 × 52 ÷ 12 = 4333.33…
    [1001n, 1, 'year', 83n], // 83.41…
    [1002n, 1, 'year', 84n], // 83.5: half away from zero
    [3000n, 3, 'month', 1000n],
  ] as const)('%s per %s %s is %s a month', (full, count, unit, monthly) => {
    expect(monthlyAmount(full, count, unit)).toBe(monthly);
  });
});
