import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { couponEnvironment } from './coupon-environment';

/**
 * A first-time-only promotion code under concurrency: whether a subscription
 * is the customer's first is decided in its creating transaction (the
 * customer's first-subscription claim), so of N concurrent first
 * subscriptions of one customer redeeming the code, exactly one does.
 */
describe('Promotion code firstTimeOnly under concurrency', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('8 concurrent first subscriptions of one customer with a firstTimeOnly code: one is created, the others are 409 promotion-code-restricted', async () => {
    const env = couponEnvironment(t);
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), 1000);
    const coupon = await env.coupon({ percentOff: 20, duration: 'forever' });
    const code = (await env.call('POST', '/promotion-codes', { couponId: coupon.id, code: 'WELCOME', restrictions: { firstTimeOnly: true } }, 201)).body;
    const customerId = (await env.call('POST', '/customers', {}, 201)).body.id;

    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        env.subscription({ customer: undefined, customerId, items: [{ priceId: price }], discounts: [{ promotionCode: 'welcome' }] }),
      ),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.status !== 201)) expectProblem(response, 409, 'promotion-code-restricted');
    expect((await env.call('GET', `/promotion-codes/${code.id}`, undefined, 200)).body.timesRedeemed).toBe(1);
    expect((await env.call('GET', `/coupons/${coupon.id}`, undefined, 200)).body.timesRedeemed).toBe(1);
    expect((await env.call('GET', `/subscriptions?customerId=${customerId}&limit=100`, undefined, 200)).body.items).toHaveLength(1);
  });

  it('a subscription without the code racing a first-time one: the customer has two subscriptions at most one of which redeemed the code', async () => {
    const env = couponEnvironment(t);
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), 1000);
    const coupon = await env.coupon({ percentOff: 20, duration: 'forever' });
    await env.call('POST', '/promotion-codes', { couponId: coupon.id, code: 'HELLO', restrictions: { firstTimeOnly: true } }, 201);
    const customerId = (await env.call('POST', '/customers', {}, 201)).body.id;

    const [plain, coded] = await Promise.all([
      env.subscription({ customer: undefined, customerId, items: [{ priceId: price }] }),
      env.subscription({ customer: undefined, customerId, items: [{ priceId: price }], discounts: [{ promotionCode: 'HELLO' }] }),
    ]);
    expect(plain.status).toBe(201);
    // Which commits first decides: the coded one is first (201) or finds the plain one's claim (409), never both first.
    if (coded.status !== 201) expectProblem(coded, 409, 'promotion-code-restricted');
    else expect(coded.body.discounts).toHaveLength(1);
  });
});
