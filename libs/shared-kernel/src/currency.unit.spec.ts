import { isSupportedCurrency, minorUnits } from './currency';

describe('currencies', () => {
  it.each([
    ['eur', 2],
    ['usd', 2],
    ['jpy', 0],
    ['krw', 0],
    ['isk', 0],
    ['clp', 0],
    ['huf', 2],
    ['idr', 2],
    ['cop', 2],
    ['pkr', 2],
    ['bhd', 3],
    ['kwd', 3],
    ['iqd', 3],
    ['tnd', 3],
  ])('%s has %i minor units, as ISO 4217 lists it', (code, exponent) => {
    expect(minorUnits(code)).toBe(exponent);
  });

  it('knows only lower-case active codes', () => {
    expect(isSupportedCurrency('eur')).toBe(true);
    expect(isSupportedCurrency('EUR')).toBe(false);
    expect(isSupportedCurrency('xau')).toBe(false);
    expect(isSupportedCurrency('constructor')).toBe(false);
    expect(() => minorUnits('xxx')).toThrow(RangeError);
  });
});
