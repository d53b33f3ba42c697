import { CommandMetadata, QUANTITY_SCALE, ValidationError, discountAmounts, scaledToNumber, validDate } from '@billing/shared-kernel';
import { InvoiceDiscount, InvoiceLine } from './invoice-events';
import { PERCENTAGE_SCALE, ScaledLine, TAX_RATE_SCALE, computeLine, computeTotals, parseLine } from './invoice-maths';
import { MAX_INVOICE_LINES } from './invoice';
import type { RequestedLine } from './invoice-commands';
import { figuresOf } from './invoice-totals';
import { NO_TAX, ResolvedTax, TaxRegister } from './tax-code';

/** The lines a command asks for, checked and completed with their figures (create, update and duplicate share these rules). */

/** A requested line with its tax code resolved. */
export interface ResolvedLine extends Omit<RequestedLine, 'taxCode'> {
  readonly tax: ResolvedTax;
}

/**
 * Checks the number of lines and resolves the tax code each names against the
 * register: no code means not taxed; an unknown code is a 422 at
 * `/items/<i>/taxCode` (all unknown codes are reported at once).
 */
export function resolveLines(items: readonly RequestedLine[], taxes: TaxRegister): ResolvedLine[] {
  if (items.length > MAX_INVOICE_LINES) throw ValidationError.at('/items', `must have at most ${MAX_INVOICE_LINES} lines (has ${items.length})`);
  const errors = items.flatMap((item, i) =>
    typeof item.taxCode === 'string' && !taxes.has(item.taxCode) ? [{ pointer: `/items/${i}/taxCode`, detail: 'is not a tax code of this environment' }] : [],
  );
  if (errors.length > 0) throw new ValidationError('The request names an unknown tax code.', errors, 'unknown-tax-code');
  return items.map(({ taxCode, ...line }) => ({ ...line, tax: (typeof taxCode === 'string' ? taxes.get(taxCode) : undefined) ?? NO_TAX }));
}

/** Replaces the lines: a given id must name a line of the invoice (and keeps it), no id gets a new one. */
export function buildLines(items: readonly ResolvedLine[], current: readonly InvoiceLine[], meta: CommandMetadata): InvoiceLine[] {
  const known = new Set(current.map((line) => line.id));
  const seen = new Set<string>();
  const lines = items.map((item, i) => {
    const pointer = `/items/${i}`;
    let id: string;
    if (item.id == null) {
      id = meta.newId();
    } else {
      if (!known.has(item.id)) throw ValidationError.at(`${pointer}/id`, 'is not a line of this invoice');
      if (seen.has(item.id)) throw ValidationError.at(`${pointer}/id`, 'names a line twice');
      seen.add(item.id);
      id = item.id;
    }
    const periodStart = item.periodStart == null ? null : validDate(item.periodStart, `${pointer}/periodStart`);
    const periodEnd = item.periodEnd == null ? null : validDate(item.periodEnd, `${pointer}/periodEnd`);
    if (periodStart !== null && periodEnd !== null && periodEnd < periodStart) {
      throw ValidationError.at(`${pointer}/periodEnd`, 'must not be before periodStart');
    }
    const { tax } = item;
    const scaled = parseLine(
      { quantity: item.quantity, unitAmount: item.unitAmount, discount: item.discount, taxable: tax.taxable, taxRate: tax.taxRate },
      pointer,
    );
    const base = {
      id,
      ...(item.priceId ? { priceId: item.priceId, productId: item.productId ?? null } : {}),
      sku: item.sku ?? null,
      title: item.title ?? null,
      description: item.description ?? null,
      periodStart,
      periodEnd,
      tax: { taxCode: tax.taxCode, taxable: tax.taxable, taxRate: tax.taxRate },
    };
    return lineWith(base, scaled, pointer);
  });
  computeTotals(lines.map(figuresOf));
  return lines;
}

/** Completes a line from its descriptive fields and its exact inputs: numbers are written back from the scaled values. */
export function lineWith(
  base: Pick<InvoiceLine, 'id' | 'sku' | 'title' | 'description' | 'periodStart' | 'periodEnd' | 'tax' | 'priceId' | 'productId'>,
  scaled: ScaledLine,
  pointer: string,
): InvoiceLine {
  const figures = computeLine(scaled, pointer);
  const discount = scaled.discount;
  return {
    id: base.id,
    ...(base.priceId ? { priceId: base.priceId, productId: base.productId ?? null } : {}),
    sku: base.sku,
    title: base.title,
    description: base.description,
    periodStart: base.periodStart,
    periodEnd: base.periodEnd,
    quantity: scaledToNumber(scaled.quantity, QUANTITY_SCALE),
    unitAmount: Number(scaled.unitAmount),
    discount:
      discount === null
        ? null
        : discount.kind === 'percentage'
          ? { percentage: scaledToNumber(discount.percentage, PERCENTAGE_SCALE), amount: null }
          : { percentage: null, amount: Number(discount.amount) },
    tax: { ...base.tax, taxRate: scaledToNumber(scaled.taxRate, TAX_RATE_SCALE) },
    discountAmount: Number(figures.discount),
    ...(scaled.coupon !== 0n ? { couponAmount: Number(scaled.coupon) } : {}),
    amount: Number(figures.amount),
    taxAmount: Number(figures.taxAmount),
  };
}

export function scaledLineOf(line: InvoiceLine, pointer: string): ScaledLine {
  return parseLine({ ...line, taxable: line.tax.taxable, taxRate: line.tax.taxRate }, pointer);
}

/**
 * A draft's lines with its coupons applied (the shared kernel's
 * discountAmounts: in the order given, each on what the line's own discount
 * and the earlier coupons left; an appliesTo coupon only on lines whose price's
 * product it names). What coupons took before is taken off first, so applying
 * again (an update, changed lines or coupons) never discounts twice. Lines
 * totalling less than a promotion code's minimum before coupons get none of it.
 */
export function withCoupons(lines: readonly InvoiceLine[], discounts: readonly InvoiceDiscount[]): InvoiceLine[] {
  const bare = lines.map((line, i) => (line.couponAmount ? lineWith(line, { ...scaledLineOf(line, `/items/${i}`), coupon: 0n }, `/items/${i}`) : line));
  const subtotal = bare.reduce((sum, line) => sum + BigInt(line.amount), 0n);
  const applying = discounts.filter((discount) => discount.minimumAmount === null || subtotal >= BigInt(discount.minimumAmount));
  if (applying.length === 0) return bare;
  const off = discountAmounts(
    bare.map((line) => ({ amount: BigInt(line.amount), productId: line.productId ?? null })),
    applying,
  );
  return bare.map((line, i) => (off[i] === 0n ? line : lineWith(line, { ...scaledLineOf(line, `/items/${i}`), coupon: off[i] }, `/items/${i}`)));
}
