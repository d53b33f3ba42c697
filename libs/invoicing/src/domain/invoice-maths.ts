import { QUANTITY_SCALE, ValidationError, assertAmountInRange, divideRoundingHalfAwayFromZero, parseScaledDecimal } from '@billing/shared-kernel';

/**
 * Invoice arithmetic on integers only. Decimals arrive as JSON numbers and are
 * parsed exactly into scaled BigInts; every monetary step is rounded to whole
 * cents with the service's one rounding rule (half away from zero), so the
 * same line always yields the same cents and a negated line yields exactly the
 * negated cents.
 */

export const TAX_RATE_SCALE = 4;
export const PERCENTAGE_SCALE = 2;

const QUANTITY_ONE = 10n ** BigInt(QUANTITY_SCALE);
const TAX_RATE_ONE = 10n ** BigInt(TAX_RATE_SCALE);
/** 100% at scale 2: a percentage p (scaled) discounts gross × p / 10000. */
const PERCENT_HUNDRED = 100n * 10n ** BigInt(PERCENTAGE_SCALE);

export type SettlementStatus = 'settled' | 'over_settled' | 'under_settled' | 'not_settled';

/** A line discount as given: exactly one of percentage or fixed amount. */
export type ScaledDiscount = { readonly kind: 'percentage'; readonly percentage: bigint } | { readonly kind: 'amount'; readonly amount: bigint };

/** A line's inputs, exactly, as scaled integers. */
export interface ScaledLine {
  /** × 10^4 */
  readonly quantity: bigint;
  readonly unitAmount: bigint;
  readonly discount: ScaledDiscount | null;
  /** What the invoice's coupons take off the line after its own discount (draft invoice discounts; the sign of the gross); 0n: none. */
  readonly coupon: bigint;
  readonly taxable: boolean;
  /** fraction × 10^4 (0.255 → 2550n) */
  readonly taxRate: bigint;
}

/** A line's inputs as they arrive in JSON. */
export interface LineInput {
  readonly quantity: number | string;
  readonly unitAmount: number;
  readonly discount?: { readonly percentage?: number | string | null; readonly amount?: number | null } | null;
  /** The coupons' part of the line's discount, as stored (InvoiceLine.couponAmount); absent: none. */
  readonly couponAmount?: number | null;
  readonly taxable: boolean;
  readonly taxRate: number | string;
}

/** Whole cents of one line. */
export interface LineFigures {
  /** round(unitAmount × quantity) */
  readonly gross: bigint;
  readonly discount: bigint;
  /** gross − discount */
  readonly amount: bigint;
  readonly taxAmount: bigint;
}

export interface Totals {
  readonly totalExclVat: bigint;
  readonly totalVat: bigint;
  readonly totalInclVat: bigint;
}

/** An integer amount in cents, within ±MAX_AMOUNT. */
export function parseAmount(value: unknown, pointer: string): bigint {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw ValidationError.at(pointer, 'must be an integer amount in the lowest currency unit');
  }
  return assertAmountInRange(BigInt(value), pointer);
}

export function parseQuantity(value: number | string, pointer: string): bigint {
  const quantity = parseScaledDecimal(value, QUANTITY_SCALE, pointer);
  // Negative figures are expressed through unitAmount (credit notes negate it), so quantity stays a count.
  if (quantity < 0n) throw ValidationError.at(pointer, 'must not be negative');
  return quantity;
}

export function parseTaxRate(value: number | string, pointer: string): bigint {
  const rate = parseScaledDecimal(value, TAX_RATE_SCALE, pointer);
  if (rate < 0n || rate > TAX_RATE_ONE) throw ValidationError.at(pointer, 'must be a fraction between 0 and 1');
  return rate;
}

export function parseDiscount(input: LineInput['discount'], pointer: string): ScaledDiscount | null {
  if (input === null || input === undefined) return null;
  const hasPercentage = input.percentage !== null && input.percentage !== undefined;
  const hasAmount = input.amount !== null && input.amount !== undefined;
  if (hasPercentage === hasAmount) {
    throw ValidationError.at(pointer, 'exactly one of percentage or amount must be given');
  }
  if (hasPercentage) {
    const at = `${pointer}/percentage`;
    const percentage = parseScaledDecimal(input.percentage as number | string, PERCENTAGE_SCALE, at);
    if (percentage < 0n || percentage > PERCENT_HUNDRED) throw ValidationError.at(at, 'must be between 0 and 100');
    return { kind: 'percentage', percentage };
  }
  // The sign of a fixed amount is checked against the line's gross in computeLine.
  return { kind: 'amount', amount: parseAmount(input.amount, `${pointer}/amount`) };
}

/** Parses one line; `pointer` locates the line in the request (e.g. `/items/0`). */
export function parseLine(input: LineInput, pointer: string): ScaledLine {
  return {
    quantity: parseQuantity(input.quantity, `${pointer}/quantity`),
    unitAmount: parseAmount(input.unitAmount, `${pointer}/unitAmount`),
    discount: parseDiscount(input.discount, `${pointer}/discount`),
    coupon: BigInt(input.couponAmount ?? 0),
    taxable: input.taxable,
    // The rate comes from the resolved tax code, so a bad rate is reported at the code that named it.
    taxRate: parseTaxRate(input.taxRate, `${pointer}/taxCode`),
  };
}

/**
 * The cents of one line, rounding at each step. A fixed discount must pull the
 * line towards zero: it has the sign of the gross (so it is never negative on a
 * positive line, and negative on a credit-note line) and does not exceed it.
 */
export function computeLine(line: ScaledLine, pointer: string): LineFigures {
  const gross = assertAmountInRange(divideRoundingHalfAwayFromZero(line.unitAmount * line.quantity, QUANTITY_ONE), pointer);
  let discount = 0n;
  if (line.discount?.kind === 'percentage') {
    // |percentage| ≤ 100%, so |discount| ≤ |gross|: no further check needed.
    discount = divideRoundingHalfAwayFromZero(gross * line.discount.percentage, PERCENT_HUNDRED);
  } else if (line.discount?.kind === 'amount') {
    discount = line.discount.amount;
    const at = `${pointer}/discount/amount`;
    if (discount !== 0n && gross !== 0n && discount < 0n !== gross < 0n) {
      throw ValidationError.at(at, gross > 0n ? 'must not be negative' : 'must be negative on a negative line');
    }
    if (abs(discount) > abs(gross)) {
      throw ValidationError.at(at, 'must not exceed the line amount (unitAmount × quantity)', 'discount-exceeds-line-amount');
    }
  }
  // Coupons take their part of what the line's own discount left (the shared kernel's discountAmounts keeps it within that).
  const amount = gross - discount - line.coupon;
  return { gross, discount: discount + line.coupon, amount, taxAmount: taxOf(amount, line.taxable, line.taxRate) };
}

/** The tax of a line amount: round(amount × taxRate) when taxable, else 0 (taxRate scaled by 10^4). */
export function taxOf(amount: bigint, taxable: boolean, taxRate: bigint): bigint {
  return taxable ? divideRoundingHalfAwayFromZero(amount * taxRate, TAX_RATE_ONE) : 0n;
}

/** Lines are rounded individually, then summed; `pointer` locates the lines (e.g. `/items`). */
export function computeTotals(lines: readonly Pick<LineFigures, 'amount' | 'taxAmount'>[], pointer = '/items'): Totals {
  const totalExclVat = assertAmountInRange(sum(lines.map((l) => l.amount)), pointer);
  const totalVat = assertAmountInRange(sum(lines.map((l) => l.taxAmount)), pointer);
  const totalInclVat = assertAmountInRange(totalExclVat + totalVat, pointer);
  return { totalExclVat, totalVat, totalInclVat };
}

export function totalDue(totalInclVat: bigint, settledSum: bigint, pointer = '/amount'): bigint {
  return assertAmountInRange(totalInclVat - settledSum, pointer);
}

/**
 * Compares the net settled sum with the total in the direction of the total
 * (absolute values for a credit note, whose total is negative):
 * - total 0: `settled` while nothing is settled, any net settlement is `over_settled`;
 * - nothing settled: `not_settled`;
 * - exactly the total: `settled`; beyond it: `over_settled`; short of it: `under_settled`.
 * A net settlement of the wrong sign (e.g. refunds exceeding payments) leaves
 * more than the total outstanding, so it is `under_settled`.
 */
export function settlementStatus(total: bigint, settledSum: bigint): SettlementStatus {
  if (total === 0n) return settledSum === 0n ? 'settled' : 'over_settled';
  if (settledSum === 0n) return 'not_settled';
  const direction = total < 0n ? -1n : 1n;
  const due = total * direction;
  const paid = settledSum * direction;
  if (paid === due) return 'settled';
  return paid > due ? 'over_settled' : 'under_settled';
}

/**
 * The line of a credit note: unitAmount and a fixed discount change sign,
 * quantity, percentage and tax stay. Since rounding is odd (round(−x) = −round(x)),
 * every figure of the negated line is exactly the negation of the original's.
 */
export function negateLine(line: ScaledLine): ScaledLine {
  return {
    ...line,
    unitAmount: -line.unitAmount,
    discount: line.discount?.kind === 'amount' ? { kind: 'amount', amount: -line.discount.amount } : line.discount,
    coupon: -line.coupon,
  };
}

function sum(values: readonly bigint[]): bigint {
  return values.reduce((acc, value) => acc + value, 0n);
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}
