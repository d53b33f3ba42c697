import { expectProblem, startTestApp, TestApp } from '@billing/testing';
import { customer, otherEnvironment } from './invoicing-helpers';

/**
 * An invoice holds at most 500 lines, and list pages carry invoices without
 * their lines and settlements: neither one request nor one page grows with
 * what clients put into invoices.
 */
describe('Invoice size bounds over HTTP', () => {
  let t: TestApp;
  const line = { quantity: 1, unitAmount: 100, title: 'Usage of the metered feature during the period', taxCode: null };
  const lines = (count: number) => Array.from({ length: count }, () => line);

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('500 lines are accepted on create and update', async () => {
    const created = await t.request('POST', '/invoices', { body: { customer: customer(), currency: 'EUR', items: lines(500) } });
    expect(created.status).toBe(201);
    expect(created.body.items).toHaveLength(500);
    expect(created.body.totalInclVat).toBe(50000);
    const updated = await t.request('PUT', `/invoices/${created.body.id}`, { body: { date: created.body.date, currency: null, items: lines(500) } });
    expect(updated.status).toBe(200);
  });

  it('501 lines are a 422 at /items on create and update', async () => {
    expectProblem(
      await t.request('POST', '/invoices', { body: { customer: customer(), currency: 'EUR', items: lines(501) } }),
      422,
      'validation-failed',
      '/items',
    );
    const draft = await t.request('POST', '/invoices', { body: { customer: customer(), currency: 'EUR' } });
    const refused = await t.request('PUT', `/invoices/${draft.body.id}`, { body: { date: draft.body.date, currency: null, items: lines(501) } });
    expectProblem(refused, 422, 'validation-failed', '/items');
    expect(refused.body.errors[0].detail).toContain('at most 500');
  });

  it('a body of ~35 000 lines (just under 1 MiB) is a small 422 at /items', async () => {
    const many = Array.from({ length: 34_000 }, () => ({ quantity: 1, unitAmount: 1 }));
    const response = await t.request('POST', '/invoices', { body: { customer: customer(), currency: 'EUR', items: many } });
    expectProblem(response, 422, 'validation-failed', '/items');
    expect(response.text.length).toBeLessThan(2_000);
  });

  it('a page of invoices with 500 lines each carries no lines: its size does not grow with them', async () => {
    const env = otherEnvironment(t);
    for (let i = 0; i < 10; i++) {
      const created = await env.request('POST', '/invoices', { body: { customer: customer(), currency: 'EUR', memo: `big ${i}`, items: lines(500) } });
      expect(created.status).toBe(201);
    }
    const single = await env.request('GET', `/invoices?limit=1`);
    const page = await env.request('GET', '/invoices?limit=100');
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(10);
    for (const item of page.body.items) {
      expect(item).not.toHaveProperty('items');
      expect(item).not.toHaveProperty('settlements');
      expect(item).toMatchObject({ totalInclVat: 50000, status: 'draft' });
    }
    // ten summaries: about ten times one summary, nowhere near ten 500-line invoices (~60 kB each)
    expect(page.text.length).toBeLessThan(single.text.length * 11);
    expect(page.text.length).toBeLessThan(10_000);
    const detail = await env.request('GET', `/invoices/${page.body.items[0].id}`);
    expect(detail.body.items).toHaveLength(500);
  });
});
