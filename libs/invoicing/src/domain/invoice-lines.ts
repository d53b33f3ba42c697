import { CommandMetadata, QUANTITY_SCALE, ValidationError, scaledToNumber, validDate } from '@billing/shared-kernel';
import { InvoiceLine } from './invoice-events';
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
  base: Pick<InvoiceLine, 'id' | 'sku' | 'title' | 'description' | 'periodStart' | 'periodEnd' | 'tax'>,
  scaled: ScaledLine,
  pointer: string,
): InvoiceLine {
  const figures = computeLine(scaled, pointer);
  const discount = scaled.discount;
  return {
    id: base.id,
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
    amount: Number(figures.amount),
    taxAmount: Number(figures.taxAmount),
  };
}

export function scaledLineOf(line: InvoiceLine, pointer: string): ScaledLine {
  return parseLine({ ...line, taxable: line.tax.taxable, taxRate: line.tax.taxRate }, pointer);
}
