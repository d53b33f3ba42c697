import { ValidationError } from './domain-error';

/**
 * Decimals of a quantity, wherever one is: a price is quoted for it, a
 * subscription item holds it, an invoice line bills it. One scale, so a
 * quantity passes from catalog to subscription to invoice unchanged.
 */
export const QUANTITY_SCALE = 4;

/**
 * Decimal inputs (quantities, tax rates, percentages) arrive as JSON numbers and
 * are parsed into integers scaled by 10^scale. More decimals than the scale
 * allows is a validation error, never a silent rounding.
 */
export function parseScaledDecimal(value: number | string, scale: number, pointer: string): bigint {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw ValidationError.at(pointer, `must be a decimal number`);
  const [, sign, whole, fraction = ''] = match;
  const significantFraction = fraction.replace(/0+$/, '');
  if (significantFraction.length > scale) {
    throw ValidationError.at(pointer, `must have at most ${scale} decimal places`, 'too-many-decimals');
  }
  const scaled = BigInt(whole + significantFraction.padEnd(scale, '0'));
  return sign === '-' ? -scaled : scaled;
}

/** Formats a scaled integer back as a JSON number (exact for the precisions we use). */
export function scaledToNumber(value: bigint, scale: number): number {
  return Number(formatScaledDecimal(value, scale));
}

export function formatScaledDecimal(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = scale > 0 ? digits.slice(digits.length - scale).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The shortest decimal that round-trips the double, without exponent notation. */
function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) return 'NaN';
  const text = String(value);
  if (!/e/i.test(text)) return text;
  const [mantissa, exponentText] = text.toLowerCase().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace('-', '').split('.');
  const digits = whole + fraction;
  const point = whole.length + exponent;
  const plain =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (negative ? '-' : '') + plain;
}
