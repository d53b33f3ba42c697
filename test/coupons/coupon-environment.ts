import { randomUUID } from 'node:crypto';
import { environmentCall, TestApp } from '@billing/testing';

/**
 * A fresh environment per test for the coupon e2e files (its own clock,
 * catalog, coupons, customers and invoice numbers), with the calls they share.
 */
export function couponEnvironment(t: TestApp) {
  const id = randomUUID();
  const options = { environment: id, token: t.token([id]) };
  const call = environmentCall(t, id);
  return {
    id,
    options,
    call,
    async product(name = 'Pro plan'): Promise<string> {
      return (await call('POST', '/products', { name }, 201)).body.id;
    },
    async price(productId: string, unitAmount: number, name = 'Monthly'): Promise<string> {
      const body = {
        name,
        priceModel: 'fee',
        pricing: { eur: { unitAmount } },
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        billingTiming: 'advance',
        productId,
      };
      return (await call('POST', '/prices', body, 201)).body.id;
    },
    async coupon(fields: Record<string, unknown>) {
      return (await call('POST', '/coupons', { name: 'coupon', ...fields }, 201)).body;
    },
    subscription(fields: Record<string, unknown>) {
      const body = { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme Oy' }, currency: 'EUR', term: { start: '2026-02-01', end: null }, ...fields };
      return call('POST', '/subscriptions', body);
    },
    async advance(to: string) {
      return call('POST', '/test-clock/advance', { to }, 200);
    },
    async invoices(): Promise<any[]> {
      const page = await call('GET', '/invoices?limit=100', undefined, 200);
      const details = await Promise.all(page.body.items.map((item: { id: string }) => call('GET', `/invoices/${item.id}`, undefined, 200)));
      return details.map((d) => d.body).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    },
  };
}

/** The oracle: an amount spread by largest remainder, in exact integer comparisons (independent of the service's code). */
export function spread(off: number, weights: number[]): number[] {
  const whole = weights.reduce((a, b) => a + b, 0);
  const floors = weights.map((w) => Math.floor((off * w) / whole));
  const order = weights.map((w, i) => ({ i, r: (off * w) % whole })).sort((a, b) => b.r - a.r || a.i - b.i);
  let left = off - floors.reduce((a, b) => a + b, 0);
  for (const { i } of order) if (left-- > 0) floors[i] += 1;
  return floors;
}
