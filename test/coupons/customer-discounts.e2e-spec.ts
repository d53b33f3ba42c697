import { randomUUID } from 'node:crypto';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { couponEnvironment } from './coupon-environment';

/**
 * Coupons redeemed on customer records, over HTTP against real Postgres on
 * the environment's test clock: every subscription invoice of the customer
 * gets them (after the subscription's own), the billing engine and the
 * upcoming invoice alike, and redemptions are counted exactly.
 */
describe('Coupons on customers', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  async function start() {
    const env = couponEnvironment(t);
    await env.advance('2026-01-20T12:00:00.000Z');
    return env;
  }

  it('a customer’s 20 % for 3 months on a monthly subscription: the invoices whose period starts within 3 months of applying are discounted to the cent, as previewed', async () => {
    const env = await start();
    const price = await env.price(await env.product(), 2999);
    const coupon = await env.coupon({ percentOff: 20, duration: 'repeating', durationInMonths: 3 });
    const customer = await env.call('POST', '/customers', { currency: 'EUR', discounts: [{ couponId: coupon.id }] });
    expect(customer.status).toBe(201);
    expect(customer.body.discounts).toEqual([
      {
        id: expect.any(String),
        couponId: coupon.id,
        promotionCodeId: null,
        name: 'coupon',
        percentOff: 20,
        amountOff: null,
        currency: null,
        duration: 'repeating',
        durationInMonths: 3,
        appliesTo: null,
        start: '2026-01-20',
        end: '2026-04-19',
        endedAt: null,
      },
    ]);
    expect((await env.call('GET', `/coupons/${coupon.id}`, undefined, 200)).body.timesRedeemed).toBe(1);
    const subscription = (await env.subscription({ customer: undefined, customerId: customer.body.id, items: [{ priceId: price }] })).body;
    const preview = (await env.call('GET', `/subscriptions/${subscription.id}/upcoming-invoice`, undefined, 200)).body;

    await env.advance('2026-06-01T00:00:00.000Z');
    const invoices = await env.invoices();
    expect(invoices.map((invoice) => invoice.date)).toEqual(['2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01', '2026-06-01']);
    // 2999 × 20 % = 599.8 → 600 off: Feb, Mar and Apr start within Jan 20 – Apr 19; May and June do not.
    expect(invoices.map((invoice) => invoice.items[0].amount)).toEqual([2399, 2399, 2399, 2999, 2999]);
    expect(invoices[0].items[0]).toMatchObject({ quantity: 1, unitAmount: 2999, discount: { amount: 600 } });
    const { id: _id, ...booked } = invoices[0].items[0];
    expect(preview.items).toEqual([booked]);
    expect(preview.totalInclVat).toBe(invoices[0].totalInclVat);
  });

  it('the subscription’s discounts come first, then the customer’s: 10.00 off 29.99 leaves 19.99, then 20 % takes 4.00 (399.8 → 400)', async () => {
    const env = await start();
    const price = await env.price(await env.product(), 2999);
    const tenOff = await env.coupon({ amountOff: { EUR: 1000 }, duration: 'forever' });
    const twenty = await env.coupon({ percentOff: 20, duration: 'forever' });
    const customerId = (await env.call('POST', '/customers', {}, 201)).body.id;
    const updated = await env.call('PUT', `/customers/${customerId}`, { discounts: [{ couponId: twenty.id }] });
    expect(updated.status).toBe(200);
    expect(updated.body.discounts).toHaveLength(1);
    const subscription = (await env.subscription({ customer: undefined, customerId, items: [{ priceId: price }], discounts: [{ couponId: tenOff.id }] })).body;
    const preview = (await env.call('GET', `/subscriptions/${subscription.id}/upcoming-invoice`, undefined, 200)).body;
    expect(preview.items[0]).toMatchObject({ unitAmount: 2999, discount: { amount: 1400 }, amount: 1599 });
    await env.advance('2026-02-01T00:00:00.000Z');
    const [invoice] = await env.invoices();
    const { id: _id, ...booked } = invoice.items[0];
    expect(preview.items).toEqual([booked]);
  });

  it('once: the first subscription invoice made for the customer uses it, whichever subscription it bills; the customer shows it ended', async () => {
    const env = await start();
    const price = await env.price(await env.product(), 1000);
    const coupon = await env.coupon({ amountOff: { EUR: 300 }, duration: 'once' });
    const customerId = (await env.call('POST', '/customers', { currency: 'EUR', discounts: [{ couponId: coupon.id }] }, 201)).body.id;
    for (let i = 0; i < 3; i++) await env.subscription({ customer: undefined, customerId, items: [{ priceId: price }] });
    await env.advance('2026-03-01T00:00:00.000Z');
    const amounts = (await env.invoices()).map((invoice) => invoice.items[0].amount).sort((a: number, b: number) => a - b);
    expect(amounts).toEqual([700, 1000, 1000, 1000, 1000, 1000]);
    const customer = (await env.call('GET', `/customers/${customerId}`, undefined, 200)).body;
    expect(customer.discounts[0]).toMatchObject({ amountOff: 300, currency: 'EUR', duration: 'once', end: '2026-02-01', endedAt: expect.any(String) });
  });

  it('maxRedemptions 1 and 20 concurrent PUTs of 20 customers: exactly one redeems it, the others are 409 coupon-exhausted and unchanged', async () => {
    const env = await start();
    const coupon = await env.coupon({ percentOff: 10, duration: 'forever', maxRedemptions: 1 });
    const customers: string[] = [];
    for (let i = 0; i < 20; i++) customers.push((await env.call('POST', '/customers', {}, 201)).body.id);
    const responses = await Promise.all(customers.map((id) => env.call('PUT', `/customers/${id}`, { discounts: [{ couponId: coupon.id }] })));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.status !== 200)) expectProblem(response, 409, 'coupon-exhausted');
    expect((await env.call('GET', `/coupons/${coupon.id}`, undefined, 200)).body.timesRedeemed).toBe(1);
    const withDiscount = await Promise.all(customers.map(async (id) => (await env.call('GET', `/customers/${id}`, undefined, 200)).body.discounts.length));
    expect(withDiscount.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('409: an expired or archived coupon, an expired code, a first-time-only code on an existing customer; nothing is redeemed', async () => {
    const env = await start();
    const expiring = await env.coupon({ percentOff: 10, duration: 'once', redeemBy: '2026-01-25T00:00:00Z' });
    const archived = await env.coupon({ percentOff: 10, duration: 'once' });
    await env.call('PUT', `/coupons/${archived.id}/archive`, undefined, 200);
    const open = await env.coupon({ percentOff: 10, duration: 'once' });
    await env.call('POST', '/promotion-codes', { couponId: open.id, code: 'FIRST', restrictions: { firstTimeOnly: true } }, 201);
    await env.call('POST', '/promotion-codes', { couponId: open.id, code: 'SOON', expiresAt: '2026-01-22T00:00:00Z' }, 201);
    const customerId = (await env.call('POST', '/customers', {}, 201)).body.id;
    expectProblem(await env.call('POST', '/customers', { discounts: [{ couponId: archived.id }] }), 409, 'coupon-archived');
    expectProblem(await env.call('PUT', `/customers/${customerId}`, { discounts: [{ promotionCode: 'first' }] }), 409, 'promotion-code-restricted');
    // A new customer is a first-time one.
    expect((await env.call('POST', '/customers', { discounts: [{ promotionCode: 'first' }] })).status).toBe(201);
    await env.advance('2026-01-26T00:00:00.000Z');
    expectProblem(await env.call('PUT', `/customers/${customerId}`, { discounts: [{ couponId: expiring.id }] }), 409, 'coupon-expired');
    expectProblem(await env.call('PUT', `/customers/${customerId}`, { discounts: [{ promotionCode: 'SOON' }] }), 409, 'promotion-code-expired');
    expect((await env.call('GET', `/customers/${customerId}`, undefined, 200)).body.discounts).toEqual([]);
    expect((await env.call('GET', `/coupons/${expiring.id}`, undefined, 200)).body.timesRedeemed).toBe(0);
    expect((await env.call('GET', `/coupons/${open.id}`, undefined, 200)).body.timesRedeemed).toBe(1);
  });

  it('422 for every malformed or unusable discount, each at its pointer; nothing is created or redeemed', async () => {
    const env = await start();
    const coupon = await env.coupon({ percentOff: 10, duration: 'forever' });
    const euros = await env.coupon({ amountOff: { EUR: 500 }, duration: 'once' });
    const others = [];
    for (let i = 0; i < 5; i++) others.push((await env.coupon({ percentOff: 1, duration: 'forever' })).id);
    const elsewhere = randomUUID();
    const foreign = (
      await t.request('POST', '/coupons', { environment: elsewhere, token: t.token([elsewhere]), body: { name: 'x', percentOff: 5, duration: 'once' } })
    ).body;
    const cases: [Record<string, unknown>, string][] = [
      [{ discounts: Array.from({ length: 6 }, () => ({ couponId: coupon.id })) }, '/discounts'],
      [{ discounts: [{ couponId: coupon.id, promotionCode: 'X' }] }, '/discounts/0'],
      [{ discounts: [{}] }, '/discounts/0'],
      [{ discounts: [{ couponId: 'not-a-uuid' }] }, '/discounts/0/couponId'],
      [{ discounts: [{ couponId: randomUUID() }] }, '/discounts/0/couponId'],
      [{ discounts: [{ couponId: foreign.id }] }, '/discounts/0/couponId'],
      [{ discounts: [{ promotionCode: 'NOSUCHCODE' }] }, '/discounts/0/promotionCode'],
      [{ discounts: [{ couponId: euros.id }] }, '/discounts/0'],
      [{ currency: 'USD', discounts: [{ couponId: euros.id }] }, '/discounts/0'],
      [{ discounts: [{ couponId: coupon.id }, { couponId: coupon.id }] }, '/discounts/1'],
      [{ discounts: [{ couponId: coupon.id, percentOff: 5 }] }, '/discounts/0/percentOff'],
      [{ discounts: 'all' }, '/discounts'],
    ];
    for (const [body, pointer] of cases) {
      const response = await env.call('POST', '/customers', body);
      expect(response.status).toBe(422);
      expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
    }
    expect((await env.call('GET', '/customers?limit=100', undefined, 200)).body.items).toHaveLength(0);
    // On an existing customer: a coupon it has running already, more than 5 running at once.
    const customerId = (await env.call('POST', '/customers', { discounts: [{ couponId: coupon.id }] }, 201)).body.id;
    const again = await env.call('PUT', `/customers/${customerId}`, { discounts: [{ couponId: coupon.id }] });
    expect(again.status).toBe(422);
    expect(again.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/discounts/0']);
    const tooMany = await env.call('PUT', `/customers/${customerId}`, { discounts: others.map((id) => ({ couponId: id })) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/discounts']);
    expect((await env.call('GET', `/coupons/${coupon.id}`, undefined, 200)).body.timesRedeemed).toBe(1);
    expect((await env.call('GET', `/coupons/${others[0]}`, undefined, 200)).body.timesRedeemed).toBe(0);
  });

  it('DELETE ends a customer’s discount early: later invoices are whole; 409 when ended, 404 unknown or another environment’s', async () => {
    const env = await start();
    const price = await env.price(await env.product(), 1000);
    const coupon = await env.coupon({ percentOff: 10, duration: 'forever' });
    const customer = (await env.call('POST', '/customers', { discounts: [{ couponId: coupon.id }] }, 201)).body;
    await env.subscription({ customer: undefined, customerId: customer.id, items: [{ priceId: price }] });
    await env.advance('2026-02-15T00:00:00.000Z');
    const discountId = customer.discounts[0].id;
    const other = randomUUID();
    const foreign = { environment: other, token: t.token([other]) };
    expectProblem(await t.request('DELETE', `/customers/${customer.id}/discounts/${discountId}`, foreign), 404, 'not-found');
    expectProblem(await t.request('PUT', `/customers/${customer.id}`, { ...foreign, body: { discounts: [{ couponId: coupon.id }] } }), 404, 'not-found');
    expectProblem(await env.call('DELETE', `/customers/${customer.id}/discounts/${randomUUID()}`), 404, 'not-found');
    expectProblem(await env.call('DELETE', `/customers/${customer.id}/discounts/not-a-uuid`), 404, 'not-found');
    const ended = await env.call('DELETE', `/customers/${customer.id}/discounts/${discountId}`);
    expect(ended.status).toBe(200);
    expect(ended.body.discounts[0]).toMatchObject({ end: '2026-02-15', endedAt: '2026-02-15T00:00:00.000Z' });
    expectProblem(await env.call('DELETE', `/customers/${customer.id}/discounts/${discountId}`), 409, 'discount-ended');
    await env.advance('2026-03-01T00:00:00.000Z');
    expect((await env.invoices()).map((invoice) => invoice.items[0].amount)).toEqual([900, 1000]);
  });
});
