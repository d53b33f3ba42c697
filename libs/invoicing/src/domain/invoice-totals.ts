import { computeTotals, LineFigures } from './invoice-maths';
import { InvoiceLine } from './invoice-events';

/** A line's figures, as the totals add them up. */
export function figuresOf(line: InvoiceLine): Pick<LineFigures, 'amount' | 'taxAmount'> {
  return { amount: BigInt(line.amount), taxAmount: BigInt(line.taxAmount) };
}

/** An invoice's totals, from its lines. */
export function totalsOf(lines: readonly InvoiceLine[]): { totalExclVat: number; totalVat: number; totalInclVat: number } {
  const totals = computeTotals(lines.map(figuresOf));
  return {
    totalExclVat: Number(totals.totalExclVat),
    totalVat: Number(totals.totalVat),
    totalInclVat: Number(totals.totalInclVat),
  };
}
