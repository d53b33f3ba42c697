import type { InvoiceView } from '@billing/invoicing';

/**
 * An invoice with every variable a template can read set (three lines, a
 * discount, two tax rates, a settlement, a full address): what a template is
 * dry-rendered against when it is saved, and what a render thread renders
 * once when it starts (fonts loaded, code compiled) before taking work.
 */
export const SAMPLE_INVOICE: InvoiceView = {
  id: '00000000-0000-4000-8000-000000000001',
  handle: 'INV-0001',
  memo: 'Thank you for your business.',
  status: 'booked',
  type: 'invoice',
  settlementStatus: 'under_settled',
  date: '2026-03-05',
  dueDate: '2026-03-19',
  currency: 'EUR',
  createdAt: '2026-03-05T10:00:00.000Z',
  updatedAt: '2026-03-06T10:00:00.000Z',
  customer: {
    id: '00000000-0000-4000-8000-000000000002',
    handle: 'CUST-0001',
    name: 'Example Customer Oy',
    billingAddress: { street1: 'Mannerheimintie 1', street2: 'B 12', postalCode: '00100', city: 'Helsinki', county: 'Uusimaa', country: 'FI', state: null },
  },
  items: [
    {
      id: '00000000-0000-4000-8000-000000000003',
      sku: 'PRO-M',
      title: 'Pro plan',
      description: 'Monthly subscription',
      periodStart: '2026-03-01',
      periodEnd: '2026-03-31',
      quantity: 3,
      unitAmount: 123456,
      amount: 360368,
      taxAmount: 91894,
      tax: { taxable: true, taxCode: 'standard', taxRate: 0.255 },
      discount: { amount: 10000 },
    },
    {
      id: '00000000-0000-4000-8000-000000000004',
      sku: null,
      title: 'Support hours',
      description: null,
      periodStart: null,
      periodEnd: null,
      quantity: 1.5,
      unitAmount: 10000,
      amount: 15000,
      taxAmount: 2100,
      tax: { taxable: true, taxCode: 'reduced', taxRate: 0.14 },
      discount: { amount: 0 },
    },
    {
      id: '00000000-0000-4000-8000-000000000005',
      sku: 'SETUP',
      title: 'Setup fee',
      description: 'One-off',
      periodStart: null,
      periodEnd: null,
      quantity: 1,
      unitAmount: 5000,
      amount: 5000,
      taxAmount: 0,
      tax: { taxable: false, taxCode: null, taxRate: 0 },
      discount: { amount: 0 },
    },
  ],
  settlements: [{ date: '2026-03-06', amount: 100000, reference: 'PAY-0001', note: null }],
  totalExclVat: 380368,
  totalVat: 93994,
  totalInclVat: 474362,
  totalDue: 374362,
  uncollectible: false,
  creditedAmount: 0,
  creditNote: null,
};
