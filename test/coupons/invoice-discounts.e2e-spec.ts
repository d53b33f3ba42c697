import { randomUUID } from 'node:crypto';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { couponEnvironment, spread } from './coupon-environment';

/**
 * Coupons on draft invoices, over HTTP against real Postgres: redeemed when
 * the draft is created or updated (never twice for the same draft), applied
 * to its lines with the shared coupon maths, kept when it is booked.
 */
describe('Coupons on draft invoices', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  const line = (unitAmount: number, extra: Record<string, unknown> = {}) => ({ quantity: 1, unitAmount, title: `Line ${unitAmount}`, ...extra });
  const draft = (fields: Record<string, unknown>) => ({ customer: { id: randomUUID(), handle: 'C-1', name: 'Acme Oy' }, currency: 'EUR', ...fields });

  it('an amount off over three lines of odd amounts: spread by largest remainder, exactly the coupon in total; booked as drafted', async () => {
    const env = couponEnvironment(t);
    const coupon = await env.coupon({ amountOff: { EUR: 1000 }, duration: 'once' });
    const amounts = [1001, 2003, 3007];
    const created = await env.call('POST', '/invoices', draft({ items: amounts.map((amount) => line(amount)), discounts: [{ couponId: coupon.id }] }));
    expect(created.status).toBe(201);
    const expected = spread(1000, amounts);
    expect(expected).toEqual([167, 333, 500]);
    expect(created.body.items.map((item: any) => [item.discount, item.amount])).toEqual(
      amounts.map((amount, i) => [{ amount: expected[i] }, amount - expected[i]]),
    );
    expect(created.body.totalExclVat).toBe(6011 - 1000);
    expect(created.body.discounts).toEqual([
      { id: expect.any(String), couponId: coupon.id, promotionCodeId: null, name: 'coupon', percentOff: null, amountOff: 1000, appliesTo: null },
    ]);
    const booked = await env.call('PUT', `/invoices/${created.body.id}/book`, {}, 200);
    expect(booked.body.items.map((item: any) => item.amount)).toEqual([834, 1670, 2507]);
    expect(booked.body.discounts).toHaveLength(1);
  });

  it('several in the order given, each on what the line’s own discount and the earlier ones left: 20 % then 10.00 (the README example)', async () => {
    const env = couponEnvironment(t);
    const twenty = await env.coupon({ percentOff: 20, duration: 'once' });
    const ten = await env.coupon({ amountOff: { EUR: 1000 }, duration: 'once' });
    const created = await env.call(
      'POST',
      '/invoices',
      draft({ items: [line(1001), line(2003), line(3007)], discounts: [{ couponId: twenty.id }, { couponId: ten.id }] }),
    );
    expect(created.status).toBe(201);
    expect(created.body.items.map((item: any) => item.amount)).toEqual([634, 1269, 1906]);
    // A line's own discount first: 10 % of 2000 = 200, then 20 % of the 1800 left = 360.
    const own = await env.call('POST', '/invoices', draft({ items: [line(2000, { discount: { percentage: 10 } })], discounts: [{ couponId: twenty.id }] }));
    expect(own.body.items[0]).toMatchObject({ discount: { amount: 560 }, amount: 1440 });
  });

  it('an appliesTo coupon skips a line whose price is of another product, and a hand-written line without a price', async () => {
    const env = couponEnvironment(t);
    const seats = await env.product('Seats');
    const support = await env.product('Support');
    const seatPrice = await env.price(seats, 1500, 'Seat');
    const supportPrice = await env.price(support, 4000, 'Support');
    const coupon = await env.coupon({ percentOff: 50, duration: 'once', appliesTo: { productIds: [seats] } });
    const created = await env.call(
      'POST',
      '/invoices',
      draft({
        items: [line(1500, { priceId: seatPrice }), line(4000, { priceId: supportPrice }), line(700)],
        discounts: [{ couponId: coupon.id }],
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body.items.map((item: any) => [item.priceId ?? null, item.amount])).toEqual([
      [seatPrice, 750],
      [supportPrice, 4000],
      [null, 700],
    ]);
    const unknown = await env.call('POST', '/invoices', draft({ items: [line(100, { priceId: randomUUID() })] }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/items/0/priceId']);
  });

  it('updating a draft never redeems its coupon twice: maxRedemptions 1 and five updates keep the one redemption; a new coupon on update is redeemed', async () => {
    const env = couponEnvironment(t);
    const only = await env.coupon({ percentOff: 10, duration: 'once', maxRedemptions: 1 });
    const more = await env.coupon({ amountOff: { EUR: 100 }, duration: 'once' });
    const created = (await env.call('POST', '/invoices', draft({ items: [line(1000)], discounts: [{ couponId: only.id }] }), 201)).body;
    for (let i = 0; i < 5; i++) {
      const updated = await env.call('PUT', `/invoices/${created.id}`, {
        date: created.date,
        currency: null,
        items: [line(1000 + i)],
        discounts: [{ couponId: only.id }],
      });
      expect(updated.status).toBe(200);
      expect(updated.body.items[0].amount).toBe(1000 + i - Math.round((1000 + i) / 10));
    }
    // Items and discounts omitted: the draft keeps both (its coupons re-applied, not again).
    const kept = await env.call('PUT', `/invoices/${created.id}`, { date: created.date, currency: null });
    expect(kept.body.items[0]).toMatchObject({ unitAmount: 1004, amount: 904 });
    const added = await env.call('PUT', `/invoices/${created.id}`, {
      date: created.date,
      currency: null,
      discounts: [{ couponId: only.id }, { couponId: more.id }],
    });
    expect(added.body.items[0]).toMatchObject({ unitAmount: 1004, discount: { amount: 200 }, amount: 804 });
    expect((await env.call('GET', `/coupons/${only.id}`, undefined, 200)).body.timesRedeemed).toBe(1);
    expect((await env.call('GET', `/coupons/${more.id}`, undefined, 200)).body.timesRedeemed).toBe(1);
    // Another draft cannot have the used-up coupon.
    expectProblem(await env.call('POST', '/invoices', draft({ items: [line(1000)], discounts: [{ couponId: only.id }] })), 409, 'coupon-exhausted');
    const currency = await env.call('PUT', `/invoices/${created.id}`, { date: created.date, currency: 'USD' });
    expect(currency.status).toBe(422);
    expect(currency.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/currency']);
  });

  it('422 for malformed or unusable discounts and 409 for expired or archived ones; another environment’s coupon is unknown', async () => {
    const env = couponEnvironment(t);
    const coupon = await env.coupon({ percentOff: 10, duration: 'forever' });
    const dollars = await env.coupon({ amountOff: { USD: 500 }, duration: 'once' });
    const archived = await env.coupon({ percentOff: 10, duration: 'once' });
    await env.call('PUT', `/coupons/${archived.id}/archive`, undefined, 200);
    await env.call('POST', '/promotion-codes', { couponId: coupon.id, code: 'FIRST', restrictions: { firstTimeOnly: true } }, 201);
    const elsewhere = randomUUID();
    const foreign = (
      await t.request('POST', '/coupons', { environment: elsewhere, token: t.token([elsewhere]), body: { name: 'x', percentOff: 5, duration: 'once' } })
    ).body;
    const cases: [unknown, string][] = [
      [Array.from({ length: 6 }, () => ({ couponId: coupon.id })), '/discounts'],
      [[{}], '/discounts/0'],
      [[{ couponId: foreign.id }], '/discounts/0/couponId'],
      [[{ promotionCode: 'NOSUCHCODE' }], '/discounts/0/promotionCode'],
      [[{ couponId: dollars.id }], '/discounts/0'],
      [[{ couponId: coupon.id }, { couponId: coupon.id }], '/discounts/1'],
    ];
    for (const [discounts, pointer] of cases) {
      const response = await env.call('POST', '/invoices', draft({ items: [line(1000)], discounts }));
      expect(response.status).toBe(422);
      expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
    }
    expectProblem(await env.call('POST', '/invoices', draft({ items: [line(1000)], discounts: [{ couponId: archived.id }] })), 409, 'coupon-archived');
    expectProblem(
      await env.call('POST', '/invoices', draft({ items: [line(1000)], discounts: [{ promotionCode: 'first' }] })),
      409,
      'promotion-code-restricted',
    );
    expect((await env.call('GET', '/invoices?limit=100', undefined, 200)).body.items).toHaveLength(0);
    expect((await env.call('GET', `/coupons/${coupon.id}`, undefined, 200)).body.timesRedeemed).toBe(0);
  });
});
