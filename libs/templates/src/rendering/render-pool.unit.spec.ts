import type { InvoiceView } from '@billing/invoicing';
import { RenderPool, RenderPoolClosedError } from './render-pool';

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
  customer: { id: 'c', handle: null, name: 'Åsa', billingAddress: { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null } },
  items: [],
  settlements: [],
  totalExclVat: 0,
  totalVat: 0,
  totalInclVat: 0,
  totalDue: 0,
};
const options = { fallBackToBuiltIn: false, documentDate: new Date('2026-03-05T10:00:00.000Z') };

/** A pool whose hard timeout a test sets. */
class TestPool extends RenderPool {
  setHardTimeout(ms: number): void {
    this.hardTimeoutMs = ms;
  }
}

/** The render pool's threads (started from the TypeScript sources here, through ts-require.js). */
describe('RenderPool', () => {
  it('renders on a worker thread: the same bytes as in process, errors as the same problems', async () => {
    const pool = new TestPool();
    try {
      const [a, b] = await Promise.all([pool.render(invoice, 'e', null, options), pool.render(invoice, 'e', null, options)]);
      expect(Buffer.isBuffer(a.pdf)).toBe(true);
      expect(a.pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(a.sha256).toBe(b.sha256);
      const broken = { id: 'g', locale: 'en', templates: [{ id: 't', type: 'invoice_pdf' as const, content: '{{ "x" | money }}' }] };
      await expect(pool.render(invoice, 'e', broken, options)).rejects.toMatchObject({ code: 'template-render-failed' });
    } finally {
      await pool.onModuleDestroy();
    }
  });

  it('terminates and replaces a thread that does not answer in time; the next render runs on a new one', async () => {
    const pool = new TestPool();
    try {
      // Starting a thread alone takes longer than 1 ms: the render is stopped.
      pool.setHardTimeout(1);
      await expect(pool.render(invoice, 'e', null, options)).rejects.toMatchObject({ code: 'template-limit-exceeded' });
      pool.setHardTimeout(60_000);
      expect((await pool.render(invoice, 'e', null, options)).pdf.length).toBeGreaterThan(0);
    } finally {
      await pool.onModuleDestroy();
    }
  });

  it('refuses work once shut down, failing what was queued', async () => {
    const pool = new TestPool();
    const outcomes = [pool.render(invoice, 'e', null, options), pool.render(invoice, 'e', null, options)].map((render) => render.then(() => 'rendered', (error: unknown) => error));
    await pool.onModuleDestroy();
    for (const outcome of await Promise.all(outcomes)) expect(outcome).toBeInstanceOf(RenderPoolClosedError);
    await expect(pool.render(invoice, 'e', null, options)).rejects.toBeInstanceOf(RenderPoolClosedError);
  });
});
