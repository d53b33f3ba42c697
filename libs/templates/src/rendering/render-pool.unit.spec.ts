import type { InvoiceView } from '@billing/invoicing';
import { loadConfig } from '@billing/platform';
import { RenderPool, RenderPoolClosedError, RenderQueueFullError } from './render-pool';

const invoice: InvoiceView = {
  id: 'i-1',
  handle: 'INV-7',
  memo: null,
  status: 'booked',
  type: 'invoice',
  settlementStatus: 'not_settled',
  date: '2026-03-05',
  dueDate: null,
  currency: 'EUR',
  createdAt: '2026-03-05T10:00:00.000Z',
  updatedAt: null,
  customer: {
    id: 'c',
    handle: null,
    name: 'Åsa',
    billingAddress: { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null },
  },
  items: [],
  discounts: [],
  settlements: [],
  totalExclVat: 0,
  totalVat: 0,
  totalInclVat: 0,
  totalDue: 0,
  uncollectible: false,
  creditedAmount: 0,
  creditNote: null,
  creditApplied: 0,
};
const options = { fallBackToBuiltIn: false, documentDate: new Date('2026-03-05T10:00:00.000Z') };
const pool = (env: Record<string, string> = {}) => new RenderPool(loadConfig(env));
const group = (content: string) => ({ id: 'g', locale: 'en', templates: [{ id: 't', type: 'invoice_pdf' as const, content }] });

/** The render pool's threads (started from the TypeScript sources here, through ts-require.js). */
describe('RenderPool', () => {
  it('renders on a worker thread: the same bytes as in process, errors as the same problems', async () => {
    const renderer = pool();
    try {
      const [a, b] = await Promise.all([renderer.render(invoice, 'e', null, options), renderer.render(invoice, 'e', null, options)]);
      expect(Buffer.isBuffer(a.pdf)).toBe(true);
      expect(a.pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(a.sha256).toBe(b.sha256);
      await expect(renderer.render(invoice, 'e', group('{{ "x" | money }}'), options)).rejects.toMatchObject({ code: 'template-render-failed' });
    } finally {
      await renderer.onModuleDestroy();
    }
  });

  it("issue 20 #17: a render past the time limit is stopped and its thread replaced; another environment's next render is produced", async () => {
    // The pool's limit (500 ms) is below liquidjs's own (1 s), so the thread is what stops this endless template.
    const renderer = pool({ TEMPLATE_RENDER_TIMEOUT_MS: '500' });
    try {
      const endless = renderer.render(
        invoice,
        'hostile',
        group('{% for i in (1..1000) %}{% for j in (1..1000) %}{% assign m = j | money %}{% endfor %}{% endfor %}'),
        options,
      );
      const other = renderer.render(invoice, 'other', null, options);
      await expect(endless).rejects.toMatchObject({ code: 'template-limit-exceeded', message: expect.stringContaining('did not finish within 500 ms') });
      expect((await other).pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(renderer.threadsStarted).toBe(2);
    } finally {
      await renderer.onModuleDestroy();
    }
  });

  it('issue 20 #17: a render that needs more heap than its thread may have is stopped, and the next render runs on a new thread', async () => {
    const renderer = pool({ TEMPLATE_RENDER_MEMORY_MB: '64', TEMPLATE_RENDER_TIMEOUT_MS: '60000' });
    try {
      // Within the budget of a 3 000-line invoice and quick for liquidjs (3 000 iterations), but 60 000 paragraphs
      // (from the lines' descriptions) are far beyond 64 MB of heap to lay out.
      const description = '<p>Monthly subscription, seat 1</p>'.repeat(20);
      const items = Array.from({ length: 3_000 }, (_, i) => ({
        id: `l${i}`,
        sku: null,
        title: `Line ${i}`,
        description,
        periodStart: null,
        periodEnd: null,
        quantity: 1,
        unitAmount: 100,
        amount: 100,
        taxAmount: 0,
        tax: { taxable: false, taxCode: null, taxRate: 0 },
        discount: { amount: 0 },
      }));
      const hungry = group('{% for l in lines %}{{ l.description | raw }}{% endfor %}');
      await expect(renderer.render({ ...invoice, items }, 'hungry', hungry, options)).rejects.toMatchObject({
        code: 'template-limit-exceeded',
        message: expect.stringContaining('needed more than 64 MB'),
      });
      expect((await renderer.render(invoice, 'other', null, options)).pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(renderer.threadsStarted).toBe(2);
    } finally {
      await renderer.onModuleDestroy();
    }
  });

  it('issue 20 #17: an environment may have only so many renders waiting; others still queue', async () => {
    const renderer = pool({ TEMPLATE_RENDER_QUEUE: '2' });
    try {
      const outcomes = [1, 2, 3].map(() =>
        renderer.render(invoice, 'busy', null, options).then(
          () => 'rendered',
          (error: unknown) => error,
        ),
      );
      const other = renderer.render(invoice, 'other', null, options);
      expect(await outcomes[2]).toBeInstanceOf(RenderQueueFullError);
      expect(await Promise.all(outcomes.slice(0, 2))).toEqual(['rendered', 'rendered']);
      expect((await other).pdf.length).toBeGreaterThan(0);
    } finally {
      await renderer.onModuleDestroy();
    }
  });

  it('refuses work once shut down, failing what was queued', async () => {
    const renderer = pool();
    const outcomes = [renderer.render(invoice, 'e', null, options), renderer.render(invoice, 'e', null, options)].map((render) =>
      render.then(
        () => 'rendered',
        (error: unknown) => error,
      ),
    );
    await renderer.onModuleDestroy();
    for (const outcome of await Promise.all(outcomes)) expect(outcome).toBeInstanceOf(RenderPoolClosedError);
    await expect(renderer.render(invoice, 'e', null, options)).rejects.toBeInstanceOf(RenderPoolClosedError);
  });
});
