import fc from 'fast-check';
import { divideRoundingHalfAwayFromZero, divideRoundingUp } from './rounding';

describe('divideRoundingHalfAwayFromZero', () => {
  it.each([
    [5n, 2n, 3n],
    [-5n, 2n, -3n],
    [7n, 3n, 2n],
    [-7n, 3n, -2n],
    [8n, 3n, 3n],
    [0n, 7n, 0n],
    [5n, -2n, -3n],
  ])('%p / %p = %p', (n, d, expected) => {
    expect(divideRoundingHalfAwayFromZero(n, d)).toBe(expected);
  });

  it('is odd: rounding a negated value negates the result', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.bigInt({ min: 1n, max: 10n ** 12n }), (n, d) => {
        expect(divideRoundingHalfAwayFromZero(-n, d)).toBe(-divideRoundingHalfAwayFromZero(n, d));
      }),
    );
  });

  it('is within half a unit of the exact quotient', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.bigInt({ min: 1n, max: 10n ** 12n }), (n, d) => {
        const q = divideRoundingHalfAwayFromZero(n, d);
        const twiceError = 2n * (q * d - n);
        expect(twiceError <= d && twiceError >= -d).toBe(true);
      }),
    );
  });

  it('rejects division by zero', () => {
    expect(() => divideRoundingHalfAwayFromZero(1n, 0n)).toThrow(RangeError);
  });
});

describe('divideRoundingUp', () => {
  it('rounds up partial units', () => {
    expect(divideRoundingUp(11n, 10n)).toBe(2n);
    expect(divideRoundingUp(10n, 10n)).toBe(1n);
    expect(divideRoundingUp(0n, 10n)).toBe(0n);
  });
});
