/**
 * The render time of one invoice document, in process (no HTTP, no database):
 * Liquid render of the built-in invoice_pdf template, HTML layout, PDF with
 * the embedded font subset, sha256. For invoices of 5 and 50 lines, in en and
 * fi; prints the median and p95 per invoice and the extracted text of one.
 *
 *   npm run build --silent && node dist/test/bench/render-documents.js
 *
 * RENDER_BENCH_ITERATIONS (default 100) per case.
 */
import type { InvoiceView } from '@billing/invoicing';
import { documentBudget, renderInvoiceDocument } from '@billing/templates';
import { pdfText } from '../templates/pdf-text';

const ITERATIONS = Number(process.env.RENDER_BENCH_ITERATIONS ?? 100);

function invoiceWith(lines: number): InvoiceView {
  return {
    id: '7d3c1a52-0b5e-4c1a-9f3e-2d4b6a8c0e11',
    handle: 'INV-000042',
    memo: 'Kiitos tilauksesta!',
    status: 'booked',
    type: 'invoice',
    settlementStatus: 'not_settled',
    date: '2026-03-05',
    dueDate: '2026-03-19',
    currency: 'EUR',
    createdAt: '2026-03-05T10:00:00.000Z',
    updatedAt: null,
    customer: {
      id: '3b0a008d-c648-49d0-ae94-772197b918a5',
      handle: 'CUST-42',
      name: 'Jääkiekko Łódź Søren Oy',
      billingAddress: { street1: 'Mannerheimintie 12 B', street2: null, postalCode: '00100', city: 'Helsinki', county: null, country: 'FI', state: null },
    },
    items: Array.from({ length: lines }, (_, i) => ({
      id: `line-${i}`,
      sku: null,
      title: i === 0 ? 'Pro plan (annual)' : `Extra seat ${i}`,
      description: null,
      periodStart: '2026-03-01',
      periodEnd: '2026-03-31',
      quantity: i === 0 ? 3 : 2.5,
      unitAmount: i === 0 ? 123456 : 1999,
      amount: i === 0 ? 370368 : 4998,
      taxAmount: i === 0 ? 94444 : 1274,
      tax: { taxable: true, taxCode: 'fi-std', taxRate: 0.255 },
      discount: { amount: 0 },
    })),
    discounts: [],
    settlements: [],
    totalExclVat: 370368 + (lines - 1) * 4998,
    totalVat: 94444 + (lines - 1) * 1274,
    totalInclVat: 370368 + (lines - 1) * 4998 + 94444 + (lines - 1) * 1274,
    totalDue: 370368 + (lines - 1) * 4998 + 94444 + (lines - 1) * 1274,
    uncollectible: false,
    creditedAmount: 0,
    creditNote: null,
    creditApplied: 0,
  };
}

async function main(): Promise<void> {
  const options = { fallBackToBuiltIn: false, documentDate: new Date('2026-03-05T10:00:00.000Z'), budget: documentBudget(invoiceWith(50), 0) };
  const rows: string[] = [];
  for (const lines of [5, 50]) {
    for (const locale of ['en', 'fi']) {
      const invoice = invoiceWith(lines);
      const group = locale === 'en' ? null : { id: 'bench', locale, templates: [] };
      for (let i = 0; i < 5; i++) await renderInvoiceDocument(invoice, 'bench', group, options);
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < ITERATIONS; i++) {
        const started = process.hrtime.bigint();
        const rendered = await renderInvoiceDocument(invoice, 'bench', group, options);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
        bytes = rendered.pdf.length;
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
      rows.push(
        `| ${lines} | ${locale} | ${at(0.5)} ms | ${at(0.95)} ms | ${(1000 / (times.reduce((a, b) => a + b, 0) / times.length)).toFixed(0)}/s | ${bytes} B |`,
      );
    }
  }
  console.log(`| lines | locale | median | p95 | invoices/s (one core) | PDF size |\n|---|---|---|---|---|---|\n${rows.join('\n')}`);
  const sample = await renderInvoiceDocument(invoiceWith(3), 'bench', { id: 'bench', locale: 'fi', templates: [] }, options);
  console.log('\nText of a rendered invoice (fi, 3 lines):\n');
  console.log(await pdfText(sample.pdf));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
