import { ValidationError } from './domain-error';
import { formatScaledDecimal, parseScaledDecimal, scaledToNumber } from './scaled-decimal';

describe('parseScaledDecimal', () => {
  it.each([
    [1, 4, 10000n],
    [1.2345, 4, 12345n],
    [0.255, 4, 2550n],
    [23.5, 2, 2350n],
    [-2.5, 4, -25000n],
    [1e-4, 4, 1n],
    [1e21, 0, 10n ** 21n],
    ['3.10', 2, 310n],
  ])('parses %p at scale %p as %p', (input, scale, expected) => {
    expect(parseScaledDecimal(input, scale, '/q')).toBe(expected);
  });

  it('rejects more decimals than the scale allows, naming the pointer', () => {
    expect(() => parseScaledDecimal(1.23456, 4, '/items/0/quantity')).toThrow(ValidationError);
    try {
      parseScaledDecimal(1.23456, 4, '/items/0/quantity');
    } catch (error) {
      expect((error as ValidationError).errors).toEqual([{ pointer: '/items/0/quantity', detail: 'must have at most 4 decimal places' }]);
    }
  });

  it('rejects non-numbers', () => {
    expect(() => parseScaledDecimal(Number.NaN, 2, '/x')).toThrow(ValidationError);
    expect(() => parseScaledDecimal('1,5', 2, '/x')).toThrow(ValidationError);
  });
});

describe('formatScaledDecimal', () => {
  it('formats without trailing zeros', () => {
    expect(formatScaledDecimal(12340n, 4)).toBe('1.234');
    expect(formatScaledDecimal(-5n, 4)).toBe('-0.0005');
    expect(formatScaledDecimal(10000n, 4)).toBe('1');
    expect(scaledToNumber(2550n, 4)).toBe(0.255);
  });
});
