import { randomUUID } from 'node:crypto';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

const T0 = '2026-01-15T10:00:00.000Z';

describe('Coupons and promotion codes over HTTP', () => {
  let t: TestApp;
  const clock = new FakeClock(new Date(T0));
  const otherEnvironment = randomUUID();
  let otherToken: string;

  beforeAll(async () => {
    t = await startTestApp({ clock });
    otherToken = t.token([otherEnvironment]);
  });
  afterAll(() => t.close());

  const createCoupon = async (body: Record<string, unknown>) => {
    const response = await t.request('POST', '/coupons', { body });
    expect(response.status).toBe(201);
    return response.body;
  };
  const pointers = (response: { status: number; body: { errors?: { pointer: string }[] } }) => {
    expect(response.status).toBe(422);
    return response.body.errors!.map((error) => error.pointer).sort();
  };

  it('POST /coupons answers 201 with the coupon, ETag and Location; GET returns it; another environment gets 404', async () => {
    const response = await t.request('POST', '/coupons', { body: { name: '20 % for 3 months', percentOff: 20, duration: 'repeating', durationInMonths: 3 } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.any(String),
      status: 'active',
      code: null,
      name: '20 % for 3 months',
      percentOff: 20,
      amountOff: null,
      duration: 'repeating',
      durationInMonths: 3,
      appliesTo: null,
      maxRedemptions: null,
      redeemBy: null,
      timesRedeemed: 0,
      createdAt: T0,
      updatedAt: null,
      archivedAt: null,
    });
    expect(response.headers.get('location')).toBe(`/coupons/${response.body.id}`);
    const read = await t.request('GET', `/coupons/${response.body.id}`);
    expect(read.body).toEqual(response.body);
    expectProblem(await t.request('GET', `/coupons/${response.body.id}`, { environment: otherEnvironment, token: otherToken }), 404, 'not-found');
  });

  it('amountOff per currency, uppercased; appliesTo products must exist', async () => {
    const product = (await t.request('POST', '/products', { body: { name: 'Seats' } })).body;
    const coupon = await createCoupon({ name: '10 off', amountOff: { eur: 1000, USD: 1200 }, duration: 'once', appliesTo: { productIds: [product.id] } });
    expect(coupon.amountOff).toEqual({ EUR: 1000, USD: 1200 });
    expect(coupon.appliesTo).toEqual({ productIds: [product.id] });
    expect(
      pointers(await t.request('POST', '/coupons', { body: { name: 'x', percentOff: 5, duration: 'once', appliesTo: { productIds: [randomUUID()] } } })),
    ).toEqual(['/appliesTo/productIds/0']);
  });

  it.each([
    ['both percentOff and amountOff', { percentOff: 10, amountOff: { EUR: 100 }, duration: 'once' }, ['/amountOff', '/percentOff']],
    ['neither', { duration: 'once' }, ['/percentOff']],
    ['percentOff 0', { percentOff: 0, duration: 'once' }, ['/percentOff']],
    ['percentOff 100.001', { percentOff: 100.001, duration: 'once' }, ['/percentOff']],
    ['percentOff with 3 decimals', { percentOff: 12.345, duration: 'once' }, ['/percentOff']],
    ['repeating without months', { percentOff: 10, duration: 'repeating' }, ['/durationInMonths']],
    ['months without repeating', { percentOff: 10, duration: 'forever', durationInMonths: 2 }, ['/durationInMonths']],
    ['121 months', { percentOff: 10, duration: 'repeating', durationInMonths: 121 }, ['/durationInMonths']],
    ['an unknown currency', { amountOff: { XXY: 100 }, duration: 'once' }, ['/amountOff/XXY']],
    ['an amount of 0', { amountOff: { EUR: 0 }, duration: 'once' }, ['/amountOff/EUR']],
    ['an unknown property', { percentOff: 10, duration: 'once', currency: 'EUR' }, ['/currency']],
    ['an unknown duration', { percentOff: 10, duration: 'weekly' }, ['/duration']],
    ['a malformed redeemBy', { percentOff: 10, duration: 'once', redeemBy: 'tomorrow' }, ['/redeemBy']],
  ])('422 for %s', async (_, body, expected) => {
    expect(pointers(await t.request('POST', '/coupons', { body: { name: 'bad', ...body } }))).toEqual(expected);
  });

  it('a coupon code is unique per environment case-insensitively (409 coupon-code-taken), free in another environment', async () => {
    const code = `LAUNCH${Date.now()}`;
    await createCoupon({ code, name: 'launch', percentOff: 50, duration: 'forever' });
    expectProblem(
      await t.request('POST', '/coupons', { body: { code: code.toLowerCase(), name: 'again', percentOff: 5, duration: 'once' } }),
      409,
      'coupon-code-taken',
    );
    const other = await t.request('POST', '/coupons', {
      body: { code, name: 'there', percentOff: 5, duration: 'once' },
      environment: otherEnvironment,
      token: otherToken,
    });
    expect(other.status).toBe(201);
  });

  it('PUT changes name, raises maxRedemptions and sets redeemBy; lowering or a term is a 422; archive is final', async () => {
    const coupon = await createCoupon({ name: 'limited', percentOff: 10, duration: 'once', maxRedemptions: 5 });
    const updated = await t.request('PUT', `/coupons/${coupon.id}`, { body: { name: 'renamed', maxRedemptions: 10, redeemBy: '2026-06-30T23:59:59Z' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'renamed', maxRedemptions: 10, redeemBy: '2026-06-30T23:59:59.000Z', updatedAt: T0 });
    expect(updated.headers.get('etag')).toBe('"2"');
    expect(pointers(await t.request('PUT', `/coupons/${coupon.id}`, { body: { maxRedemptions: 9 } }))).toEqual(['/maxRedemptions']);
    expect(pointers(await t.request('PUT', `/coupons/${coupon.id}`, { body: { percentOff: 50 } }))).toEqual(['/percentOff']);
    expectProblem(await t.request('PUT', `/coupons/${coupon.id}`, { body: { name: 'stale' }, headers: { 'if-match': '"1"' } }), 409, 'version-conflict');
    const archived = await t.request('PUT', `/coupons/${coupon.id}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ status: 'archived', archivedAt: T0 });
    expectProblem(await t.request('PUT', `/coupons/${coupon.id}/archive`), 409, 'coupon-archived');
    expectProblem(await t.request('PUT', `/coupons/${coupon.id}`, { body: { name: 'late' } }), 409, 'coupon-archived');
    expectProblem(await t.request('PUT', `/coupons/${coupon.id}/archive`, { environment: otherEnvironment, token: otherToken }), 404, 'not-found');
  });

  it('GET /coupons pages newest first', async () => {
    const environment = randomUUID();
    const as = { environment, token: t.token([environment]) };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.request('POST', '/coupons', { body: { name: `c${i}`, percentOff: 1, duration: 'once' }, ...as })).body.id);
    const first = await t.request('GET', '/coupons?limit=2', as);
    const second = await t.request('GET', `/coupons?limit=2&pageToken=${first.body.nextPageToken}`, as);
    expect([...first.body.items, ...second.body.items].map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    expect(second.body.nextPageToken).toBeNull();
    expect(pointers(await t.request('GET', '/coupons?limit=0', as))).toEqual(['/query/limit']);
  });

  describe('promotion codes', () => {
    it('POST/GET/list/archive; the code is unique case-insensitively; unknown coupon 422, archived coupon 409', async () => {
      const coupon = await createCoupon({ name: 'spring', percentOff: 15, duration: 'once' });
      const code = `Spring${Date.now()}`;
      const created = await t.request('POST', '/promotion-codes', {
        body: {
          couponId: coupon.id,
          code,
          maxRedemptions: 3,
          expiresAt: '2026-03-01T00:00:00Z',
          restrictions: { firstTimeOnly: true, minimumAmount: { eur: 5000 } },
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        status: 'active',
        couponId: coupon.id,
        code,
        maxRedemptions: 3,
        expiresAt: '2026-03-01T00:00:00.000Z',
        restrictions: { firstTimeOnly: true, minimumAmount: { EUR: 5000 } },
        timesRedeemed: 0,
        createdAt: T0,
        archivedAt: null,
      });
      expect(created.headers.get('location')).toBe(`/promotion-codes/${created.body.id}`);
      expect((await t.request('GET', `/promotion-codes/${created.body.id}`)).body).toEqual(created.body);
      expect((await t.request('GET', '/promotion-codes?limit=1')).body.items[0].id).toBe(created.body.id);
      expectProblem(await t.request('POST', '/promotion-codes', { body: { couponId: coupon.id, code: code.toUpperCase() } }), 409, 'promotion-code-taken');
      expect(pointers(await t.request('POST', '/promotion-codes', { body: { couponId: randomUUID(), code: 'NOPE1' } }))).toEqual(['/couponId']);
      expect(pointers(await t.request('POST', '/promotion-codes', { body: { couponId: coupon.id, code: 'has space', extra: 1 } }))).toEqual([
        '/code',
        '/extra',
      ]);
      expectProblem(await t.request('GET', `/promotion-codes/${created.body.id}`, { environment: otherEnvironment, token: otherToken }), 404, 'not-found');
      const archived = await t.request('PUT', `/promotion-codes/${created.body.id}/archive`);
      expect(archived.body).toMatchObject({ status: 'archived', archivedAt: T0 });
      expectProblem(await t.request('PUT', `/promotion-codes/${created.body.id}/archive`), 409, 'promotion-code-archived');
      await t.request('PUT', `/coupons/${coupon.id}/archive`);
      expectProblem(await t.request('POST', '/promotion-codes', { body: { couponId: coupon.id, code: `${code}X` } }), 409, 'coupon-archived');
    });
  });
});
