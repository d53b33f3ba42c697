import { formatDate, formatMoney, formatNumber, formatPercent, FormattingError, resolveLocale } from './formatting';

/** Intl separates groups and the currency with no-break spaces (U+00A0 or U+202F, by ICU version): compare with plain spaces. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('money, date, number and percent formatting per locale', () => {
  it.each([
    ['en', 123456, 'EUR', '€1,234.56'],
    ['fi', 123456, 'EUR', '1 234,56 €'],
    ['de', 123456, 'EUR', '1.234,56 €'],
    ['en', 123456, 'JPY', '¥123,456'],
    ['fi', 123456, 'JPY', '123 456 ¥'],
    ['de', 123456, 'JPY', '123.456 ¥'],
    ['en', 1234567, 'BHD', 'BHD 1,234.567'],
    ['fi', 1234567, 'BHD', '1 234,567 BHD'],
    ['de', 1234567, 'BHD', '1.234,567 BHD'],
    ['en', -500, 'usd', '-$5.00'],
    ['en', 0, 'EUR', '€0.00'],
  ])('%s: %d minor units of %s is %s', (locale, amount, currency, expected) => {
    expect(plain(formatMoney(amount, currency, locale))).toBe(expected);
  });

  it('is exact for the largest safe integer (no float division)', () => {
    expect(formatMoney(Number.MAX_SAFE_INTEGER, 'EUR', 'en')).toBe('€90,071,992,547,409.91');
    expect(plain(formatMoney(Number.MAX_SAFE_INTEGER, 'KWD', 'en'))).toBe('KWD 9,007,199,254,740.991');
  });

  it('refuses what is not an amount or a currency', () => {
    expect(() => formatMoney(1.5, 'EUR', 'en')).toThrow(FormattingError);
    expect(() => formatMoney('abc', 'EUR', 'en')).toThrow(FormattingError);
    expect(() => formatMoney(100, 'XXX', 'en')).toThrow(/unknown currency/);
    expect(() => formatMoney(100, 'constructor', 'en')).toThrow(/unknown currency/);
  });

  it('formats dates (date-only and instants, in UTC) by style', () => {
    expect(formatDate('2026-03-05', 'en')).toBe('Mar 5, 2026');
    expect(formatDate('2026-03-05', 'fi')).toBe('5.3.2026');
    expect(formatDate('2026-03-05', 'de')).toBe('05.03.2026');
    expect(formatDate('2026-03-05T23:30:00.000Z', 'en', 'long')).toBe('March 5, 2026');
    expect(formatDate(null, 'en')).toBe('');
    expect(() => formatDate('not a date', 'en')).toThrow(FormattingError);
    expect(() => formatDate('2026-03-05', 'en', 'weird')).toThrow(/style/);
  });

  it('formats numbers and rates', () => {
    expect(plain(formatNumber(1234.5, 'fi'))).toBe('1 234,5');
    expect(formatNumber(2, 'de')).toBe('2');
    expect(formatNumber(1.23456, 'en')).toBe('1.2346');
    expect(formatPercent(0.255, 'en')).toBe('25.5%');
    expect(plain(formatPercent(0.24, 'fi'))).toBe('24 %');
    expect(() => formatNumber('x', 'en')).toThrow(FormattingError);
  });

  it('resolves locales Intl formats for, canonically, and nothing else', () => {
    expect(resolveLocale('en')).toBe('en');
    expect(resolveLocale('fi-fi')).toBe('fi-FI');
    expect(resolveLocale('de-CH')).toBe('de-CH');
    expect(resolveLocale('not a locale')).toBeNull();
    expect(resolveLocale('')).toBeNull();
  });
});
