import { randomUUID } from 'node:crypto';
import { startTestApp } from '@billing/testing';
/** Malformed input of every shape answers a 4xx problem, never a 500. */
it('answers every kind of malformed input with a 4xx problem, never a 500', async () => {
  const t = await startTestApp();
  const inv = (
    await t.request('POST', '/invoices', {
      body: { customer: { id: randomUUID(), handle: 'c', name: 'n' }, currency: 'EUR', items: [{ quantity: 1, unitAmount: 100 }] },
    })
  ).body;
  const price = (await t.request('POST', '/prices', { body: { name: 'p', priceModel: 'fee', purchase: 'one_time', pricing: { eur: { unitAmount: 1 } } } }))
    .body;
  const cases: [string, string, any][] = [
    ['POST', '/invoices', []],
    ['POST', '/invoices', null],
    ['POST', '/invoices', 'x'],
    ['POST', '/invoices', { customer: 'x', items: 'y' }],
    ['PUT', `/invoices/${inv.id}`, { date: 'nope', currency: 5, items: [{ quantity: '1', unitAmount: 1e300 }] }],
    ['PUT', `/invoices/${inv.id}`, { date: '2026-02-30', currency: null, items: [null] }],
    ['PUT', `/invoices/${inv.id}`, { date: '2026-01-01', currency: null, items: [{ quantity: 1e20, unitAmount: 2147483647 }] }],
    ['POST', `/invoices/${inv.id}/duplicate`, { reverse: 'yes' }],
    ['POST', `/invoices/${inv.id}/duplicate`, []],
    ['POST', `/invoices/${inv.id}/settlements`, { date: 'x', amount: 1.5 }],
    ['PUT', `/invoices/${inv.id}/book`, { date: 12 }],
    ['GET', '/invoices?pageToken=%%%&limit=abc', undefined],
    ['GET', '/invoices?limit=1&limit=2', undefined],
    ['POST', '/prices', []],
    ['POST', '/prices', null],
    ['POST', '/prices', { name: 'p', priceModel: 'fee', purchase: 'one_time', pricing: { eur: { unitAmount: 1e300 } } }],
    ['PUT', `/prices/${price.id}`, []],
    ['POST', `/prices/${price.id}/quote`, { currency: 'eur', quantity: 1e300 }],
    ['GET', '/prices?pageToken=eyJwIjoiYWJjIn0&limit=x', undefined],
    ['GET', '/prices?archived=maybe', undefined],
    ['POST', '/tax-codes', { code: 'x', rate: 'a' }],
    ['PUT', '/tax-codes/%2F..', { rate: 2 }],
    ['PUT', '/webhooks/subscribe', { url: 'ftp://x' }],
    ['PUT', '/webhooks/subscribe', []],
    ['GET', '/webhooks?pageToken=zz', undefined],
    ['POST', '/products', { name: 5 }],
    ['GET', '/products?limit=0', undefined],
  ];
  for (const [m, p, b] of cases) {
    const r = await t.request(m, p, b === undefined ? {} : { rawBody: JSON.stringify(b) });
    expect({ request: `${m} ${p}`, status: r.status >= 400 && r.status < 500, type: r.headers.get('content-type') }).toEqual({
      request: `${m} ${p}`,
      status: true,
      type: 'application/problem+json; charset=utf-8',
    });
  }
  const wh = await t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://example.com/h' }, headers: { 'x-version': '1999-99' } });
  expect([wh.status, wh.body.type]).toEqual([422, '/problems/unknown-version']);
  await t.close();
});
