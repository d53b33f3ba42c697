import { formatScaledDecimal, SUPPORTED_CURRENCIES } from '@billing/shared-kernel';

/**
 * Formatting for people, in a group's locale, with the runtime's Intl (full
 * ICU in Node): money from integer minor units with the currency's own
 * exponent (EUR 2, JPY 0, BHD 3), dates, numbers and rates. Formatters are
 * cached per (locale, options): a locale is one of few a deployment uses.
 */
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
const MAX_CACHED = 500;

function cached<F extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => F): F {
  let formatter = formatters.get(key) as F | undefined;
  if (!formatter) {
    if (formatters.size >= MAX_CACHED) formatters.clear();
    formatter = make();
    formatters.set(key, formatter);
  }
  return formatter;
}

/** The canonical form of a BCP 47 tag Intl formats numbers and dates for, or null. */
export function resolveLocale(tag: string): string | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (!canonical || Intl.NumberFormat.supportedLocalesOf([canonical]).length !== 1 || Intl.DateTimeFormat.supportedLocalesOf([canonical]).length !== 1)
      return null;
    return canonical;
  } catch {
    return null;
  }
}

/** Thrown for a value a filter cannot format: the template is at fault, and its render fails with this message. */
export class FormattingError extends Error {}

function integerOf(value: unknown, what: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) return BigInt(value);
  if (typeof value === 'bigint') return value;
  throw new FormattingError(`${what} must be an integer amount in minor units, not ${JSON.stringify(value) ?? String(value)}`);
}

/**
 * An amount in minor units as money: `formatMoney(123456, 'EUR', 'en')` is
 * `€1,234.56`, in `fi` `1 234,56 €`. Exact for every safe integer: the
 * decimal is built as text and given to Intl as a string, never as a float.
 */
export function formatMoney(amount: unknown, currency: unknown, locale: string): string {
  const code = typeof currency === 'string' ? currency.toLowerCase() : '';
  const exponent = SUPPORTED_CURRENCIES[code];
  if (exponent === undefined || !Object.prototype.hasOwnProperty.call(SUPPORTED_CURRENCIES, code))
    throw new FormattingError(`money: unknown currency ${JSON.stringify(currency)}`);
  const decimal = formatScaledDecimal(integerOf(amount, 'money'), exponent);
  const formatter = cached(
    `money|${locale}|${code}`,
    () => new Intl.NumberFormat(locale, { style: 'currency', currency: code.toUpperCase(), minimumFractionDigits: exponent, maximumFractionDigits: exponent }),
  );
  // Intl.NumberFormat formats a decimal string exactly (ES2023); the lib typings predate it.
  return formatter.format(decimal as unknown as number);
}

export type DateStyle = 'short' | 'medium' | 'long' | 'full';
const DATE_STYLES: readonly string[] = ['short', 'medium', 'long', 'full'];
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A date (`2026-01-15`) or an instant (ISO 8601) as a date in the locale; instants in UTC. Empty for null. */
export function formatDate(value: unknown, locale: string, style: unknown = 'medium'): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof style !== 'string' || !DATE_STYLES.includes(style)) throw new FormattingError(`date: the style must be one of ${DATE_STYLES.join(', ')}`);
  const date = typeof value === 'string' ? new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value) : null;
  if (date === null || Number.isNaN(date.getTime())) throw new FormattingError(`date: ${JSON.stringify(value) ?? String(value)} is not a date`);
  return cached(`date|${locale}|${style}`, () => new Intl.DateTimeFormat(locale, { dateStyle: style as DateStyle, timeZone: 'UTC' })).format(date);
}

/** A quantity or other number in the locale, with up to `maximumFractionDigits` (0–10, default 4) decimals. */
export function formatNumber(value: unknown, locale: string, maximumFractionDigits: unknown = 4): string {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) throw new FormattingError(`number: ${JSON.stringify(value) ?? String(value)} is not a number`);
  if (typeof maximumFractionDigits !== 'number' || !Number.isInteger(maximumFractionDigits) || maximumFractionDigits < 0 || maximumFractionDigits > 10) {
    throw new FormattingError('number: the decimals must be an integer from 0 to 10');
  }
  return cached(`number|${locale}|${maximumFractionDigits}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits })).format(number);
}

/** A rate given as a fraction (0.255) as a percentage in the locale (25.5%, in fi 25,5 %). */
export function formatPercent(value: unknown, locale: string): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new FormattingError(`percent: ${JSON.stringify(value) ?? String(value)} is not a number`);
  return cached(`percent|${locale}`, () => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 })).format(value);
}
