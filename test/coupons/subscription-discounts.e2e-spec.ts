import { randomUUID } from 'node:crypto';
import { environmentCall, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/**
 * Coupons redeemed on subscriptions, over HTTP against real Postgres, on the
 * environment's test clock: the invoices the billing engine books carry the
 * discounts to the cent, and redemptions are counted exactly.
 */
describe('Coupons on subscriptions', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  /** A fresh environment per test: its own clock, catalog, coupons and invoice numbers. */
  function environment() {
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

  /** The oracle: an amount spread by largest remainder, in exact rational comparisons (independent of the service's code). */
  function spread(off: number, weights: number[]): number[] {
    const whole = weights.reduce((a, b) => a + b, 0);
    const floors = weights.map((w) => Math.floor((off * w) / whole));
    const order = weights.map((w, i) => ({ i, r: (off * w) % whole })).sort((a, b) => b.r - a.r || a.i - b.i);
    let left = off - floors.reduce((a, b) => a + b, 0);
    for (const { i } of order) if (left-- > 0) floors[i] += 1;
    return floors;
  }

  it('20 % for 3 months on a monthly subscription: over 5 months of test clock exactly the first 3 invoices are discounted, to the cent', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), 2999);
    const coupon = await env.coupon({ percentOff: 20, duration: 'repeating', durationInMonths: 3 });
    const created = await env.subscription({ items: [{ priceId: price }], discounts: [{ couponId: coupon.id }] });
    expect(created.status).toBe(201);
    expect(created.body.discounts).toEqual([
      {
        id: expect.any(String),
        couponId: coupon.id,
        promotionCodeId: null,
        name: 'coupon',
        percentOff: 20,
        amountOff: null,
        duration: 'repeating',
        durationInMonths: 3,
        appliesTo: null,
        start: '2026-02-01',
        end: '2026-04-30',
        endedAt: null,
      },
    ]);
    expect((await env.call('GET', `/coupons/${coupon.id}`)).body.timesRedeemed).toBe(1);
    const preview = (await env.call('GET', `/subscriptions/${created.body.id}/upcoming-invoice`, undefined, 200)).body;

    await env.advance('2026-06-01T00:00:00.000Z');
    const invoices = await env.invoices();
    expect(invoices.map((invoice) => invoice.date)).toEqual(['2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01', '2026-06-01']);
    const off = Math.round((2999 * 20) / 100); // 599.8 → 600
    expect(invoices.map((invoice) => invoice.items[0].amount)).toEqual([2999 - off, 2999 - off, 2999 - off, 2999, 2999]);
    expect(invoices[0].items[0]).toMatchObject({ quantity: 1, unitAmount: 2999, discount: { amount: off } });
    // The preview showed the discount exactly as the booked invoice has it.
    const { id: _id, ...booked } = invoices[0].items[0];
    expect(preview.items).toEqual([booked]);
    expect(preview.totalInclVat).toBe(invoices[0].totalInclVat);
  });

  it('an amount off spreads over three lines of odd amounts by largest remainder, once: the next invoice is whole and the discount shows its end', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const product = await env.product();
    const amounts = [1001, 2003, 3007];
    const prices = [];
    for (const [index, amount] of amounts.entries()) prices.push(await env.price(product, amount, `Part ${index}`));
    const coupon = await env.coupon({ amountOff: { EUR: 1000, USD: 900 }, duration: 'once' });
    const created = await env.subscription({ items: prices.map((priceId) => ({ priceId })), discounts: [{ couponId: coupon.id }] });
    expect(created.status).toBe(201);

    await env.advance('2026-03-01T00:00:00.000Z');
    const [first, second] = await env.invoices();
    const expected = spread(1000, amounts);
    expect(first.items.map((line: any) => line.amount)).toEqual(amounts.map((amount, i) => amount - expected[i]));
    expect(first.items.reduce((sum: number, line: any) => sum + line.amount, 0)).toBe(amounts.reduce((a, b) => a + b, 0) - 1000);
    expect(second.items.map((line: any) => line.amount)).toEqual(amounts);
    const subscription = (await env.call('GET', `/subscriptions/${created.body.id}`, undefined, 200)).body;
    expect(subscription.discounts[0]).toMatchObject({ duration: 'once', end: '2026-02-01', endedAt: expect.any(String) });
  });

  it('an appliesTo coupon discounts only its products’ lines; an amount larger than the eligible lines takes them to zero, never below', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const seats = await env.product('Seats');
    const support = await env.product('Support');
    const seatPrice = await env.price(seats, 1500, 'Seat');
    const supportPrice = await env.price(support, 4000, 'Support');
    const half = await env.coupon({ percentOff: 50, duration: 'forever', appliesTo: { productIds: [seats] } });
    const big = await env.coupon({ amountOff: { EUR: 100000 }, duration: 'forever', appliesTo: { productIds: [seats] } });
    const created = await env.subscription({
      items: [{ priceId: seatPrice }, { priceId: supportPrice }],
      discounts: [{ couponId: half.id }, { couponId: big.id }],
    });
    expect(created.status).toBe(201);
    await env.advance('2026-02-01T00:00:00.000Z');
    const [invoice] = await env.invoices();
    expect(invoice.items.map((line: any) => [line.title, line.amount])).toEqual([
      ['Seat', 0],
      ['Support', 4000],
    ]);
  });

  it('maxRedemptions 1 and 20 concurrent subscriptions: exactly one is created, the others are 409 coupon-exhausted', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), 1000);
    const coupon = await env.coupon({ percentOff: 10, duration: 'once', maxRedemptions: 1 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => env.subscription({ items: [{ priceId: price }], discounts: [{ couponId: coupon.id }] })),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.status !== 201)) expectProblem(response, 409, 'coupon-exhausted');
    expect((await env.call('GET', `/coupons/${coupon.id}`)).body.timesRedeemed).toBe(1);
    expect((await env.call('GET', '/subscriptions?limit=100')).body.items).toHaveLength(1);
  });

  it('a promotion code redeems its coupon case-insensitively; an expired code, an expired or archived coupon are 409 and redeem nothing', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), 1000);
    const coupon = await env.coupon({ percentOff: 10, duration: 'once', redeemBy: '2026-01-25T00:00:00Z' });
    const code = (await env.call('POST', '/promotion-codes', { couponId: coupon.id, code: 'Winter26', expiresAt: '2026-01-22T00:00:00Z' }, 201)).body;
    const redeemed = await env.subscription({ items: [{ priceId: price }], discounts: [{ promotionCode: 'WINTER26' }] });
    expect(redeemed.status).toBe(201);
    expect(redeemed.body.discounts[0]).toMatchObject({ couponId: coupon.id, promotionCodeId: code.id });
    expect((await env.call('GET', `/promotion-codes/${code.id}`)).body.timesRedeemed).toBe(1);

    await env.advance('2026-01-23T00:00:00.000Z');
    expectProblem(await env.subscription({ items: [{ priceId: price }], discounts: [{ promotionCode: 'winter26' }] }), 409, 'promotion-code-expired');
    await env.advance('2026-01-26T00:00:00.000Z');
    expectProblem(await env.subscription({ items: [{ priceId: price }], discounts: [{ couponId: coupon.id }] }), 409, 'coupon-expired');
    const archived = await env.coupon({ percentOff: 10, duration: 'once' });
    await env.call('PUT', `/coupons/${archived.id}/archive`, undefined, 200);
    expectProblem(await env.subscription({ items: [{ priceId: price }], discounts: [{ couponId: archived.id }] }), 409, 'coupon-archived');
    expect((await env.call('GET', `/coupons/${coupon.id}`)).body.timesRedeemed).toBe(1);
    expect((await env.call('GET', '/subscriptions?limit=100')).body.items).toHaveLength(1);
  });

  it('promotion code restrictions: firstTimeOnly needs a customer record with no subscription yet; minimumAmount leaves smaller invoices whole', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const product = await env.product();
    const small = await env.price(product, 1000, 'Small');
    const large = await env.price(product, 2500, 'Large');
    const coupon = await env.coupon({ percentOff: 20, duration: 'forever' });
    await env.call('POST', '/promotion-codes', { couponId: coupon.id, code: 'FIRST', restrictions: { firstTimeOnly: true } }, 201);
    await env.call('POST', '/promotion-codes', { couponId: coupon.id, code: 'BIG', restrictions: { minimumAmount: { EUR: 2000 } } }, 201);
    await env.call('POST', '/promotion-codes', { couponId: coupon.id, code: 'DOLLARS', restrictions: { minimumAmount: { USD: 2000 } } }, 201);
    const customer = (await env.call('POST', '/customers', {}, 201)).body.id;

    expectProblem(await env.subscription({ items: [{ priceId: small }], discounts: [{ promotionCode: 'first' }] }), 409, 'promotion-code-restricted');
    const first = await env.subscription({ customer: undefined, customerId: customer, items: [{ priceId: small }], discounts: [{ promotionCode: 'first' }] });
    expect(first.status).toBe(201);
    expectProblem(
      await env.subscription({ customer: undefined, customerId: customer, items: [{ priceId: small }], discounts: [{ promotionCode: 'FIRST' }] }),
      409,
      'promotion-code-restricted',
    );
    const dollars = await env.subscription({ items: [{ priceId: small }], discounts: [{ promotionCode: 'DOLLARS' }] });
    expect(dollars.status).toBe(422);
    expect(dollars.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/discounts/0']);

    expect((await env.subscription({ items: [{ priceId: small }], discounts: [{ promotionCode: 'BIG' }] })).status).toBe(201);
    expect((await env.subscription({ items: [{ priceId: large }], discounts: [{ promotionCode: 'BIG' }] })).status).toBe(201);
    await env.advance('2026-02-01T00:00:00.000Z');
    const amounts = (await env.invoices()).map((invoice) => invoice.items[0].amount).sort((a: number, b: number) => a - b);
    // The first-time customer's 1000 at 20 %, the 1000 below BIG's minimum whole, the 2500 at 20 %.
    expect(amounts).toEqual([800, 1000, 2000]);
  });

  it('an archived coupon’s discounts run their course; DELETE ends one early (409 when ended, 404 unknown or another environment’s)', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), 1000);
    const coupon = await env.coupon({ percentOff: 10, duration: 'forever' });
    const created = (await env.subscription({ items: [{ priceId: price }], discounts: [{ couponId: coupon.id }] })).body;
    await env.call('PUT', `/coupons/${coupon.id}/archive`, undefined, 200);
    await env.advance('2026-02-15T00:00:00.000Z');
    const discountId = created.discounts[0].id;
    const other = randomUUID();
    expectProblem(
      await t.request('DELETE', `/subscriptions/${created.id}/discounts/${discountId}`, { environment: other, token: t.token([other]) }),
      404,
      'not-found',
    );
    expectProblem(await env.call('DELETE', `/subscriptions/${created.id}/discounts/${randomUUID()}`), 404, 'not-found');
    const ended = await env.call('DELETE', `/subscriptions/${created.id}/discounts/${discountId}`);
    expect(ended.status).toBe(200);
    expect(ended.body.discounts[0]).toMatchObject({ end: '2026-02-15', endedAt: '2026-02-15T00:00:00.000Z' });
    expectProblem(await env.call('DELETE', `/subscriptions/${created.id}/discounts/${discountId}`), 409, 'discount-ended');
    await env.advance('2026-03-01T00:00:00.000Z');
    expect((await env.invoices()).map((invoice) => invoice.items[0].amount)).toEqual([900, 1000]);
  });

  it('422 for every malformed or unusable discount, each at its pointer; nothing is created', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), 1000);
    const coupon = await env.coupon({ percentOff: 10, duration: 'forever' });
    const dollars = await env.coupon({ amountOff: { USD: 500 }, duration: 'once' });
    const elsewhere = randomUUID();
    const foreign = (
      await t.request('POST', '/coupons', { environment: elsewhere, token: t.token([elsewhere]), body: { name: 'x', percentOff: 5, duration: 'once' } })
    ).body;
    const cases: [unknown, string][] = [
      [Array.from({ length: 6 }, () => ({ couponId: coupon.id })), '/discounts'],
      [[{ couponId: coupon.id, promotionCode: 'X' }], '/discounts/0'],
      [[{}], '/discounts/0'],
      [[{ couponId: 'not-a-uuid' }], '/discounts/0/couponId'],
      [[{ couponId: randomUUID() }], '/discounts/0/couponId'],
      [[{ couponId: foreign.id }], '/discounts/0/couponId'],
      [[{ promotionCode: 'NOSUCHCODE' }], '/discounts/0/promotionCode'],
      [[{ couponId: dollars.id }], '/discounts/0'],
      [[{ couponId: coupon.id }, { couponId: coupon.id }], '/discounts/1'],
      [[{ couponId: coupon.id, percentOff: 5 }], '/discounts/0/percentOff'],
    ];
    for (const [discounts, pointer] of cases) {
      const response = await env.subscription({ items: [{ priceId: price }], discounts });
      expect(response.status).toBe(422);
      expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
    }
    expect((await env.call('GET', `/coupons/${coupon.id}`)).body.timesRedeemed).toBe(0);
  });
});
