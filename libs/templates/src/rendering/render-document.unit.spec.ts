import type { InvoiceView } from '@billing/invoicing';
import { pdfText } from '../../../../test/templates/pdf-text';
import { documentBudget } from './document-budget';
import { renderInvoiceDocument } from './render-document';

const invoice: InvoiceView = {
  id: '7d3c1a52-0b5e-4c1a-9f3e-2d4b6a8c0e11',
  handle: 'INV-0042',
  memo: 'Kiitos tilauksesta – Ærø',
  status: 'booked',
  type: 'invoice',
  settlementStatus: 'partially_settled' as InvoiceView['settlementStatus'],
  date: '2026-03-05',
  dueDate: '2026-03-19',
  currency: 'EUR',
  createdAt: '2026-03-05T10:00:00.000Z',
  updatedAt: null,
  customer: {
    id: 'c-1',
    handle: 'CUST-7',
    name: 'Jääkiekko Łódź Søren Oy',
    billingAddress: { street1: 'Mannerheimintie 1', street2: null, postalCode: '00100', city: 'Helsinki', county: null, country: 'FI', state: null },
  },
  items: [
    {
      id: 'l1',
      sku: null,
      title: 'Pro plan',
      description: 'Monthly',
      periodStart: null,
      periodEnd: null,
      quantity: 3,
      unitAmount: 123456,
      amount: 370368,
      taxAmount: 94444,
      tax: { taxable: true, taxCode: 'std', taxRate: 0.255 },
      discount: { amount: 0 },
    },
    {
      id: 'l2',
      sku: null,
      title: 'Support hours',
      description: null,
      periodStart: null,
      periodEnd: null,
      quantity: 1.5,
      unitAmount: 10000,
      amount: 15000,
      taxAmount: 0,
      tax: { taxable: false, taxCode: null, taxRate: 0 },
      discount: { amount: 0 },
    },
  ],
  discounts: [],
  settlements: [{ date: '2026-03-10', amount: 100000, reference: 'PAY-1', note: null }],
  totalExclVat: 385368,
  totalVat: 94444,
  totalInclVat: 479812,
  totalDue: 379812,
  uncollectible: false,
  creditedAmount: 0,
  creditNote: null,
  creditApplied: 0,
};

const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');
const options = { fallBackToBuiltIn: false, documentDate: new Date('2026-03-05T10:00:00.000Z'), budget: { outputCharacters: 1_000_000, pages: 200 } };

describe('rendering an invoice document with the built-in templates', () => {
  it('produces an extractable PDF in en with every field', async () => {
    const rendered = await renderInvoiceDocument(invoice, 'env', null, options);
    expect(rendered.pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = plain(await pdfText(rendered.pdf));
    for (const expected of [
      'Invoice INV-0042',
      'Jääkiekko Łódź Søren Oy',
      'CUST-7',
      'Mannerheimintie 1',
      '00100 Helsinki',
      'Pro plan',
      'Support hours',
      '1.5',
      '€1,234.56',
      '€3,703.68',
      '25.5%',
      '€150.00',
      '€3,853.68',
      '€944.44',
      '€4,798.12',
      '€3,798.12',
      'PAY-1',
      'Mar 5, 2026',
      'Kiitos tilauksesta – Ærø',
    ]) {
      expect(text).toContain(expected);
    }
    expect(rendered.html.toString()).toContain('<h1>Invoice INV-0042</h1>');
  });

  it('in fi: labels, money and dates in Finnish', async () => {
    const rendered = await renderInvoiceDocument(invoice, 'env', { id: 'g', locale: 'fi', templates: [] }, options);
    const text = plain(await pdfText(rendered.pdf));
    for (const expected of ['Lasku INV-0042', 'Eräpäivä', '1 234,56 €', '3 703,68 €', '4 798,12 €', '1,5', '25,5 %', '5.3.2026', 'Jääkiekko Łódź Søren Oy'])
      expect(text).toContain(expected);
  });

  it('is deterministic: the same invoice renders the same bytes', async () => {
    const [a, b] = [await renderInvoiceDocument(invoice, 'env', null, options), await renderInvoiceDocument(invoice, 'env', null, options)];
    expect(a.sha256).toBe(b.sha256);
    expect(a.pdf.equals(b.pdf)).toBe(true);
  });

  it('a credit note renders with credit_note_pdf', async () => {
    const rendered = await renderInvoiceDocument({ ...invoice, type: 'credit_note', handle: 'CN-1' }, 'env', null, options);
    expect(rendered.templateType).toBe('credit_note_pdf');
    expect(await pdfText(rendered.pdf)).toContain('Credit note CN-1');
  });

  it("falls back to the built-in template when asked and the group's fails, recording why", async () => {
    const group = { id: 'g', locale: 'de', templates: [{ id: 't', type: 'invoice_pdf' as const, content: '{{ "x" | money }}' }] };
    await expect(renderInvoiceDocument(invoice, 'env', group, options)).rejects.toMatchObject({ code: 'template-render-failed' });
    const rendered = await renderInvoiceDocument(invoice, 'env', group, { ...options, fallBackToBuiltIn: true });
    expect(rendered.fallback).toEqual({ templateGroupId: 'g', reason: expect.stringContaining('money') });
    expect(await pdfText(rendered.pdf)).toContain('Rechnung INV-0042');
  });

  it('lays out a long invoice over several pages', async () => {
    const items = Array.from({ length: 120 }, (_, i) => ({ ...invoice.items[0], id: `l${i}`, title: `Line ${i + 1}` }));
    const rendered = await renderInvoiceDocument({ ...invoice, items }, 'env', null, options);
    const text = await pdfText(rendered.pdf);
    expect(text).toContain('Line 1');
    expect(text).toContain('Line 120');
    expect((rendered.pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length).toBeGreaterThan(1);
  });

  it('issue 20 #17: a template printing 200 000 characters for a two-line invoice exceeds its budget, and falls back at booking', async () => {
    const group = { id: 'g', locale: 'en', templates: [{ id: 't', type: 'invoice_pdf' as const, content: '{% for i in (1..20000) %}xxxxxxxxxx{% endfor %}' }] };
    const budgeted = { ...options, budget: documentBudget(invoice, 1_000) };
    await expect(renderInvoiceDocument(invoice, 'env', group, budgeted)).rejects.toMatchObject({
      code: 'template-limit-exceeded',
      message: expect.stringContaining('200000 characters'),
    });
    const rendered = await renderInvoiceDocument(invoice, 'env', group, { ...budgeted, fallBackToBuiltIn: true });
    expect(rendered.fallback).toEqual({ templateGroupId: 'g', reason: expect.stringContaining('200000 characters') });
    expect(await pdfText(rendered.pdf)).toContain('Invoice INV-0042');
  });

  it('issue 20 #17: a word of 100 000 characters lays out (broken every 64 characters), and pages beyond the budget are stopped', async () => {
    const group = (content: string) => ({ id: 'g', locale: 'en', templates: [{ id: 't', type: 'invoice_pdf' as const, content }] });
    const word = await renderInvoiceDocument(invoice, 'env', group('{% for i in (1..10000) %}xxxxxxxxxx{% endfor %}'), options);
    expect(plain(await pdfText(word.pdf)).replace(/[\s\u200b]/g, '')).toBe('x'.repeat(100_000));
    const pages = renderInvoiceDocument(invoice, 'env', group('{% for i in (1..3000) %}<p>{{ i }}</p>{% endfor %}'), {
      ...options,
      budget: { outputCharacters: 1_000_000, pages: 5 },
    });
    await expect(pages).rejects.toMatchObject({ code: 'template-limit-exceeded', message: expect.stringContaining('more than 5 pages') });
  });
});
