import { randomUUID } from 'node:crypto';
import { environmentCall, TestApp } from '@billing/testing';

/** One environment of the analytics tests, calling the API with its own token; `expected` fails on any other status. */
export function analyticsEnvironment(t: TestApp) {
  const id = randomUUID();
  const call = environmentCall(t, id);
  return {
    id,
    call,
    get: async (path: string) => (await call('GET', path, undefined, 200)).body,
    advance: (to: string) => call('POST', '/test-clock/advance', { to }, 200),
    async monthlyPrice(unitAmount: number): Promise<string> {
      return this.price(unitAmount);
    },
    /** A recurring advance fee price (monthly by default) of a new product, or of `productId`. */
    async price(unitAmount: number, termUnit = 'month', productId?: string): Promise<string> {
      const product = productId ?? (await call('POST', '/products', { name: 'Pro plan' }, 201)).body.id;
      const body = { priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit, billingTiming: 'advance', productId: product, name: 'Pro' };
      return (await call('POST', '/prices', { ...body, pricing: { eur: { unitAmount } } }, 201)).body.id;
    },
    async subscribe(priceId: string, start: string, quantity = 1) {
      return this.subscription({ term: { start, end: null }, items: [{ priceId, quantity }] });
    },
    /** A subscription in EUR of an inline customer of its own, unless `fields` say otherwise. */
    async subscription(fields: Record<string, unknown>) {
      const body = { customer: { id: randomUUID(), handle: null, name: 'Acme Oy' }, currency: 'EUR', ...fields };
      return (await call('POST', '/subscriptions', body, 201)).body;
    },
    async coupon(fields: Record<string, unknown>): Promise<string> {
      return (await call('POST', '/coupons', { name: 'coupon', ...fields }, 201)).body.id;
    },
    /** A customer record in EUR; `discounts`: coupon ids redeemed on it. */
    async customer(discounts: string[] = []): Promise<string> {
      return (await call('POST', '/customers', { currency: 'EUR', discounts: discounts.map((couponId) => ({ couponId })) }, 201)).body.id;
    },
    async bookedInvoice(unitAmount: number, currency = 'EUR', dueDate?: string) {
      const body = {
        customer: { id: randomUUID(), handle: null, name: 'Direct Ltd' },
        currency,
        items: [{ title: 'Consulting', quantity: 1, unitAmount }],
        ...(dueDate ? { dueDate } : {}),
      };
      const draft = (await call('POST', '/invoices', body, 201)).body;
      return (await call('PUT', `/invoices/${draft.id}/book`, {}, 200)).body;
    },
  };
}

export type AnalyticsEnvironment = ReturnType<typeof analyticsEnvironment>;

/**
 * Five months of billing (January to May 2026) with every kind of bar: two subscriptions from January 1 (new), a
 * third in February (new), a direct invoice paid in February, a refund, a credit note and a cancellation in March
 * (churn), a fourth subscription in April (new); the environment's clock ends on May 20.
 */
export async function fiveMonthsOfBilling(env: AnalyticsEnvironment): Promise<void> {
  await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: `sk_sandbox_${randomUUID().replace(/-/g, '')}` } }, 200);
  await env.advance('2026-01-01T08:00:00.000Z');
  const price = await env.monthlyPrice(3100);
  const a = await env.subscribe(price, '2026-01-01');
  await env.subscribe(price, '2026-01-01', 2);
  await env.advance('2026-02-10T08:00:00.000Z');
  await env.subscribe(price, '2026-02-10', 3);
  const direct = await env.bookedInvoice(50_000);
  const payment = (await env.call('POST', '/payments', { invoiceId: direct.id, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201)).body;
  await env.advance('2026-03-05T08:00:00.000Z');
  await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 7_000 }, 200);
  const credited = await env.bookedInvoice(20_000);
  await env.call('POST', `/invoices/${credited.id}/credit-notes`, { amount: 4_000, reason: 'other' }, 201);
  await env.call('PUT', `/subscriptions/${a.id}/cancel`, { at: 'now' }, 202);
  await env.advance('2026-04-15T08:00:00.000Z');
  await env.subscribe(price, '2026-04-15', 4);
  await env.advance('2026-05-20T08:00:00.000Z');
}
