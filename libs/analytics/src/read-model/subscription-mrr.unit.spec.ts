import { PriceState } from '@billing/catalog';
import { SubscriptionState } from '@billing/subscriptions';
import { subscriptionMrr } from './subscription-mrr';

const price = (id: string, unitAmount: number, fields: Record<string, unknown> = {}) =>
  [id, { status: 'active', id, priceModel: 'fee', pricing: { eur: { unitAmount } }, ...fields } as unknown as PriceState] as const;

const item = (priceId: string, quantity: string, schedule: Record<string, unknown> = {}, productId = 'product-a') => ({
  id: `item-${priceId}`,
  priceId,
  quantity,
  product: { id: productId },
  schedule: { purchase: 'recurring', billingTiming: 'advance', termCount: 1, termUnit: 'month', ...schedule },
});

const subscription = (fields: Record<string, unknown>) =>
  ({ status: 'active', currency: 'eur', items: [item('monthly', '2')], discounts: [], ...fields }) as unknown as SubscriptionState;

const discount = (fields: Record<string, unknown>) => ({
  percentOff: 10,
  amountOff: null,
  duration: 'forever',
  productIds: null,
  minimumAmount: null,
  start: '2026-01-01',
  end: null,
  endedAt: null,
  ...fields,
});

const prices = new Map([price('monthly', 1_000), price('yearly', 12_000), price('usage', 100), price('setup', 5_000)]);
const DAY = '2026-03-15';

describe('subscriptionMrr', () => {
  it('given an active subscription of 2 × 10.00 a month, then 2 000', () => {
    expect(subscriptionMrr(subscription({}), prices, DAY)).toBe(2_000n);
  });

  it('given a cancelled subscription whose service has not ended, then its MRR still counts', () => {
    expect(subscriptionMrr(subscription({ status: 'cancelled' }), prices, DAY)).toBe(2_000n);
  });

  it.each(['none', 'trialing', 'ended', 'paused'])('given status %s, then 0', (status) => {
    expect(subscriptionMrr(subscription({ status }), prices, DAY)).toBe(0n);
  });

  it('given a subscription cancelled within its trial (it stays cancelled, unbilled), then 0; once its trial ended, its MRR', () => {
    const trial = { start: '2026-03-01', end: '2026-03-31', announcedAt: null, endedAt: null };
    expect(subscriptionMrr(subscription({ status: 'cancelled', trial }), prices, DAY)).toBe(0n);
    expect(subscriptionMrr(subscription({ status: 'cancelled', trial: { ...trial, endedAt: '2026-03-31T00:00:00.000Z' } }), prices, DAY)).toBe(2_000n);
  });

  it('given a paused or trialing subscription with a customer discount, then still 0', () => {
    const customer = { discounts: [discount({ currency: null }) as never], day: DAY };
    for (const status of ['paused', 'trialing']) expect(subscriptionMrr(subscription({ status }), prices, DAY, customer)).toBe(0n);
  });

  it('given a yearly item, then its amount ÷ 12; usage (event_based) and one-time items are not MRR', () => {
    const items = [
      item('yearly', '1', { termUnit: 'year' }),
      item('usage', '1', { billingTiming: 'event_based' }),
      item('setup', '1', { purchase: 'one_time', billingTiming: 'advance' }),
    ];
    expect(subscriptionMrr(subscription({ items }), prices, DAY)).toBe(1_000n);
  });

  it('given an arrears item, then it is MRR like an advance one', () => {
    expect(subscriptionMrr(subscription({ items: [item('monthly', '1', { billingTiming: 'arrears' })] }), prices, DAY)).toBe(1_000n);
  });

  it('given an item whose price is unknown, deleted or has no pricing in the currency, then it counts 0', () => {
    const items = [item('monthly', '1'), item('missing', '1'), item('gone', '1'), item('usd-only', '1')];
    const known = new Map([
      ...prices,
      ['gone', { status: 'none' } as unknown as PriceState],
      price('usd-only', 700, { pricing: { usd: { unitAmount: 700 } } }),
    ]);
    expect(subscriptionMrr(subscription({ items }), known, DAY)).toBe(1_000n);
  });

  it('given a forever or repeating-in-window discount, then MRR is after it; once, ended, not yet started or past its window, then not', () => {
    const mrr = (d: Record<string, unknown>) => subscriptionMrr(subscription({ discounts: [discount(d)] }), prices, DAY);
    expect(mrr({})).toBe(1_800n);
    expect(mrr({ duration: 'repeating', end: '2026-06-30' })).toBe(1_800n);
    expect(mrr({ duration: 'repeating', end: DAY })).toBe(1_800n);
    expect(mrr({ duration: 'once' })).toBe(2_000n);
    expect(mrr({ endedAt: '2026-02-01T00:00:00.000Z' })).toBe(2_000n);
    expect(mrr({ start: '2026-03-16' })).toBe(2_000n);
    expect(mrr({ duration: 'repeating', end: '2026-03-14' })).toBe(2_000n);
  });

  it('given an amount-off discount of another product, then MRR is not reduced; of its product, by the amount', () => {
    const mrr = (productIds: string[]) =>
      subscriptionMrr(subscription({ discounts: [discount({ percentOff: null, amountOff: 500, productIds })] }), prices, DAY);
    expect(mrr(['product-b'])).toBe(2_000n);
    expect(mrr(['product-a'])).toBe(1_500n);
  });

  it('given an amount off a yearly item, then a twelfth of it a month (discounted per invoice, then normalised)', () => {
    const items = [item('yearly', '1', { termUnit: 'year' })];
    expect(subscriptionMrr(subscription({ items, discounts: [discount({ percentOff: null, amountOff: 1_200 })] }), prices, DAY)).toBe(900n);
  });

  it('given a minimum the items reach, then the discount counts; one they do not reach, then not', () => {
    const mrr = (minimumAmount: number) => subscriptionMrr(subscription({ discounts: [discount({ minimumAmount })] }), prices, DAY);
    expect(mrr(2_000)).toBe(1_800n);
    expect(mrr(2_001)).toBe(2_000n);
  });

  describe("with its customer record's discounts", () => {
    const on = (fields: Record<string, unknown>, day = DAY) => ({ discounts: [discount({ currency: null, ...fields }) as never], day });

    it('given a forever or repeating-in-window customer discount, then MRR is after it; a once one, not', () => {
      expect(subscriptionMrr(subscription({}), prices, DAY, on({}))).toBe(1_800n);
      expect(subscriptionMrr(subscription({}), prices, DAY, on({ duration: 'repeating', end: '2026-04-30' }))).toBe(1_800n);
      expect(subscriptionMrr(subscription({}), prices, DAY, on({ duration: 'once' }))).toBe(2_000n);
    });

    it("given the customer's day outside the window (its own time zone), ended, or another currency's amount off, then not", () => {
      expect(subscriptionMrr(subscription({}), prices, DAY, on({ start: '2026-03-16' }))).toBe(2_000n);
      expect(subscriptionMrr(subscription({}), prices, DAY, on({ start: '2026-03-16' }, '2026-03-16'))).toBe(1_800n);
      expect(subscriptionMrr(subscription({}), prices, DAY, on({ endedAt: '2026-03-01T00:00:00.000Z' }))).toBe(2_000n);
      expect(subscriptionMrr(subscription({}), prices, DAY, on({ percentOff: null, amountOff: 500, currency: 'USD' }))).toBe(2_000n);
      expect(subscriptionMrr(subscription({}), prices, DAY, on({ percentOff: null, amountOff: 500, currency: 'EUR' }))).toBe(1_500n);
    });

    it("given the subscription's own discount too, then the customer's applies to what the subscription's left", () => {
      // 2 000 less 10 % is 1 800; 500 off that is 1 300 (and 500 off first, then 10 %, would be 1 350).
      const own = subscription({ discounts: [discount({})] });
      expect(subscriptionMrr(own, prices, DAY, on({ percentOff: null, amountOff: 500 }))).toBe(1_300n);
    });
  });

  it('given a subscription without a discounts member (stored before discounts), then no discount', () => {
    expect(subscriptionMrr(subscription({ discounts: undefined }), prices, DAY)).toBe(2_000n);
  });
});
