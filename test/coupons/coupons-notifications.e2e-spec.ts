import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '@billing/testing';
import { eventually } from '../webhooks/webhook-test-kit';

/**
 * The notifications of coupons and of discounts on subscriptions, queued by
 * the fan-out for real API writes (nothing is sent: the dispatcher is off),
 * and the coupon's history and as-of read from the log.
 */
describe('Coupon notifications and history', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
    expect((await t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://example.com/hooks/coupons' } })).status).toBe(200);
  });
  afterAll(() => t.close());

  /** Per event of these stream types, in log order: its type and the notifications it queued, once there are `count` of them. */
  function notifications(streamTypes: string[], count: number): Promise<{ event_type: string; types: string[]; data: any[] }[]> {
    return eventually(
      async () => {
        const rows: { event_type: string; types: string[]; data: any[] }[] = await t.dataSource.query(
          `select e.event_type,
                coalesce(array_agg(n.type order by n.type) filter (where n.type is not null), '{}') as types,
                coalesce(array_agg(n.data order by n.type) filter (where n.type is not null), '{}') as data
           from events e left join webhook_notifications n on n.event_id = e.event_id and n.environment_id = e.environment_id
          where e.environment_id = $1 and e.stream_type = any($2)
          group by e.global_position, e.event_type order by e.global_position`,
          [t.environmentId, streamTypes],
        );
        return rows.flatMap((row) => row.types).length === count ? rows : null;
      },
      // The fan-out reactor runs in the background: a loaded machine (CI's two cores) can take seconds.
      15_000,
      `${count} notifications`,
    );
  }

  it('coupon.created, promotion_code.created, subscription.discount_applied, subscription.discount_ended and coupon.archived, each with its resource', async () => {
    const coupon = (await t.request('POST', '/coupons', { body: { name: 'once', percentOff: 10, duration: 'once' } })).body;
    const code = (await t.request('POST', '/promotion-codes', { body: { couponId: coupon.id, code: `N${Date.now()}` } })).body;
    const product = (await t.request('POST', '/products', { body: { name: 'Plan' } })).body.id;
    const price = (
      await t.request('POST', '/prices', {
        body: {
          name: 'M',
          priceModel: 'fee',
          pricing: { eur: { unitAmount: 1000 } },
          purchase: 'recurring',
          termCount: 1,
          termUnit: 'month',
          billingTiming: 'advance',
          productId: product,
        },
      })
    ).body.id;
    const subscription = await t.request('POST', '/subscriptions', {
      body: {
        customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' },
        currency: 'EUR',
        // Starting in a month: nothing is billed (a SubscriptionBilled would join the stream's events).
        term: { start: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10) },
        items: [{ priceId: price }],
        discounts: [{ promotionCode: code.code }],
      },
    });
    expect(subscription.status).toBe(201);
    const ended = await t.request('DELETE', `/subscriptions/${subscription.body.id}/discounts/${subscription.body.discounts[0].id}`);
    expect(ended.status).toBe(200);
    const archived = await t.request('PUT', `/coupons/${coupon.id}/archive`);

    const rows = await notifications(['coupon', 'promotion-code', 'subscription'], 6);
    expect(rows.map((row) => [row.event_type, row.types])).toEqual([
      ['CouponCreated', ['coupon.created']],
      ['PromotionCodeCreated', ['promotion_code.created']],
      ['PromotionCodeRedeemed', []],
      ['CouponRedeemed', []],
      ['SubscriptionCreated', ['subscription.created']],
      ['SubscriptionDiscountApplied', ['subscription.discount_applied']],
      ['SubscriptionDiscountEnded', ['subscription.discount_ended']],
      ['CouponArchived', ['coupon.archived']],
    ]);
    expect(rows[0].data[0]).toEqual(expect.objectContaining({ id: coupon.id, status: 'active', timesRedeemed: 0 }));
    expect(rows[5].data[0].discounts).toEqual([expect.objectContaining({ couponId: coupon.id, promotionCodeId: code.id, endedAt: null })]);
    expect(rows[6].data[0].discounts).toEqual([expect.objectContaining({ endedAt: expect.any(String) })]);
    expect(rows[7].data[0]).toEqual(expect.objectContaining({ ...archived.body }));

    const history = await t.request('GET', `/coupons/${coupon.id}/history`);
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body)).toContain('CouponRedeemed');
    const asOf = await t.request('GET', `/coupons/${coupon.id}?asOf=${encodeURIComponent(coupon.createdAt)}`);
    expect(asOf.status).toBe(200);
    expect(asOf.body).toMatchObject({ status: 'active', timesRedeemed: 0 });
  });
});
