import { discountsFor, SubscriptionDiscount } from './discounts';

describe('discountsFor', () => {
  const base: SubscriptionDiscount = {
    id: 'd1',
    couponId: 'c1',
    promotionCodeId: null,
    promotionCode: null,
    name: '20 %',
    percentOff: 20,
    amountOff: null,
    duration: 'repeating',
    durationInMonths: 3,
    productIds: null,
    minimumAmount: null,
    start: '2026-02-01',
    end: '2026-04-30',
    endedAt: null,
  };

  it.each([
    ['2026-02-01', true],
    ['2026-04-30', true],
    ['2026-05-01', false],
    ['2026-01-31', false],
  ])('a repeating discount: an invoice whose period starts %s is discounted: %s', (periodStart, applies) => {
    expect(discountsFor([base], periodStart, 1000n)).toHaveLength(applies ? 1 : 0);
  });

  it('an ended discount, or an invoice below the minimum, gets none; absent discounts are none', () => {
    expect(discountsFor([{ ...base, endedAt: '2026-02-10T00:00:00.000Z' }], '2026-03-01', 1000n)).toEqual([]);
    expect(discountsFor([{ ...base, minimumAmount: 1001 }], '2026-03-01', 1000n)).toEqual([]);
    expect(discountsFor([{ ...base, minimumAmount: 1000 }], '2026-03-01', 1000n)).toHaveLength(1);
    expect(discountsFor(undefined, '2026-03-01', 1000n)).toEqual([]);
  });
});
