import type { Invoice } from './invoice';
import { parseTaxRate, taxOf } from './invoice-maths';
import { totalsOf } from './invoice-totals';
import { TaxRegister } from './tax-code';

/**
 * A draft invoice priced at the register's current rates: each line naming a
 * code of the register takes its current taxability and rate, and its tax and
 * the totals are recomputed (the line amount does not depend on tax). Booked
 * invoices and credit notes are returned as they are. May throw
 * `amount-out-of-range` at /items when a higher rate pushes a total beyond the limit.
 */
export function withCurrentTax(invoice: Invoice, register: TaxRegister): Invoice {
  if (invoice.status !== 'draft' || invoice.type !== 'invoice' || register.size === 0) return invoice;
  let changed = false;
  const lines = invoice.lines.map((line, i) => {
    const current = line.tax.taxCode === null ? undefined : register.get(line.tax.taxCode);
    if (!current || (current.taxable === line.tax.taxable && current.taxRate === line.tax.taxRate)) return line;
    changed = true;
    const rate = parseTaxRate(current.taxRate, `/items/${i}/taxCode`);
    return {
      ...line,
      tax: { taxCode: line.tax.taxCode, taxable: current.taxable, taxRate: current.taxRate },
      taxAmount: Number(taxOf(BigInt(line.amount), current.taxable, rate)),
    };
  });
  return changed ? { ...invoice, lines, ...totalsOf(lines) } : invoice;
}
