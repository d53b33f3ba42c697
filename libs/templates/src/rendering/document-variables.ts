import type { InvoiceView } from '@billing/invoicing';
import { labelsFor } from './default-templates';

/**
 * What a template sees (documented in docs/templates.md). Plain JSON copies,
 * never the service's objects: with `ownPropertyOnly` nothing but these
 * members is reachable. Amounts are integers in minor units (format them with
 * `money`), dates ISO strings (format with `date`).
 */
export function documentVariables(invoice: InvoiceView, environmentId: string, locale: string): Record<string, unknown> {
  const address = invoice.customer.billingAddress;
  const cityLine = [address.postalCode, address.city].filter((part) => part).join(' ');
  const addressLines = [address.street1, address.street2, cityLine, address.county, address.state, address.country].filter((part): part is string => !!part);
  const settled = invoice.totalInclVat - invoice.totalDue;
  const variables = {
    invoice: {
      id: invoice.id,
      handle: invoice.handle,
      type: invoice.type,
      status: invoice.status,
      settlementStatus: invoice.settlementStatus,
      date: invoice.date,
      dueDate: invoice.dueDate,
      currency: invoice.currency,
      memo: invoice.memo,
      createdAt: invoice.createdAt,
    },
    customer: {
      id: invoice.customer.id,
      handle: invoice.customer.handle,
      name: invoice.customer.name,
      address: { ...address },
      addressLines,
    },
    lines: invoice.items.map((line) => ({
      id: line.id,
      sku: line.sku,
      title: line.title,
      description: line.description,
      periodStart: line.periodStart,
      periodEnd: line.periodEnd,
      quantity: line.quantity,
      unitAmount: line.unitAmount,
      discountAmount: line.discount.amount,
      discountPercentage: line.discount.percentage ?? null,
      amount: line.amount,
      taxAmount: line.taxAmount,
      taxRate: line.tax.taxRate,
      taxCode: line.tax.taxCode,
      taxable: line.tax.taxable,
    })),
    totals: {
      exclVat: invoice.totalExclVat,
      vat: invoice.totalVat,
      inclVat: invoice.totalInclVat,
      settled,
      creditApplied: invoice.creditApplied,
      due: invoice.totalDue,
    },
    settlements: invoice.settlements.map((settlement) => ({ ...settlement })),
    environment: { id: environmentId },
    document: { locale },
    labels: { ...labelsFor(locale) },
  };
  // A JSON round trip: plain objects and arrays only, nothing shared with the caller.
  return JSON.parse(JSON.stringify(variables)) as Record<string, unknown>;
}
