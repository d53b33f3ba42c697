import { chargeLines, PriceComponent, priceComponents } from '@billing/catalog';
import { ValidationError } from '@billing/shared-kernel';
import { ItemCharge } from './billing';
import {
  ChargedPrice,
  ComposedLine,
  composeInvoice,
  InvoiceComposition,
  InvoiceCompositionInput,
  RatedPeriod,
  ReratedPeriod,
  withUsageLines,
} from './invoice-composition';
import { chargeOf, JAN, PRICING, priceOf, subscriptionWith, USAGE } from './invoice-composition.arbitraries';
import { CustomerDiscountTerms, SubscriptionDiscount } from './discounts';
import { Subscription } from './subscription';
import { UsageCharge } from './subscription-events';
import { item, MONTHLY_ADVANCE, MONTHLY_ARREARS } from './subscription.arbitraries';

/** Given a subscription, its prices and its rated usage, when its due charges are composed, then these lines. */

/** Usage rated at one fee version: quantity units (scaled by 10^4) at unitAmount each. */
function ratedAt(quantity: bigint, unitAmount: number): RatedPeriod<PriceComponent> {
  const components = priceComponents('fee', { unitAmount }, quantity);
  const amount = components.reduce((sum, component) => sum + component.amount, 0n);
  return {
    metric: { name: 'API calls', code: 'calls' },
    rated: { quantity, amount, segments: [{ quantity, version: { effectiveAt: '2025-12-01T00:00:00.000Z' } }] },
    lines: [chargeLines(components, amount)],
  };
}

function given(
  subscription: Subscription,
  prices: Record<string, ChargedPrice<PriceComponent>>,
  extra: Partial<Pick<InvoiceCompositionInput<PriceComponent>, 'usage' | 'rerated' | 'customerDiscounts'>> = {},
) {
  return {
    when: (billAt: string, ...charges: ItemCharge[]) => {
      const composed = composeInvoice(
        {
          subscription,
          due: { billAt: new Date(billAt), charges, prorations: [] },
          prices: new Map(Object.entries(prices)),
          usage: new Map(),
          rerated: [],
          ...extra,
        },
        PRICING,
      );
      return {
        then: (expected: Partial<Extract<InvoiceComposition, { kind: 'composed' }>> & { lines?: Partial<ComposedLine>[] }) => {
          if (composed.kind !== 'composed') throw new Error(`expected a composition, got the failure of ${composed.itemId}: ${composed.error.message}`);
          const { lines, ...rest } = expected;
          expect(composed).toMatchObject(rest);
          if (lines) expect(composed.invoice.lines).toEqual(lines.map((line) => expect.objectContaining(line)));
          return composed;
        },
        thenFails: (itemId: string, message: RegExp) => {
          expect(composed).toMatchObject({ kind: 'failed', itemId });
          expect((composed as Extract<InvoiceComposition, { kind: 'failed' }>).error.message).toMatch(message);
        },
      };
    },
  };
}

describe('composeInvoice', () => {
  const pro = { ...item('a', MONTHLY_ADVANCE), quantity: '3', taxCode: 'standard' };

  it('a full period: the components at the item quantity, no discount, the invoice dated on the billAt', () => {
    given(subscriptionWith([pro]), { 'price-a': priceOf('Pro monthly', 'fee', { unitAmount: 1000 }) })
      .when('2026-01-01T00:00:00.000Z', chargeOf('a', 'advance', '2026-01-01T00:00:00.000Z'))
      .then({
        amounts: { a: 3000n },
        usage: [],
        corrections: [],
        usageLines: { first: 1, count: 0 },
        invoice: expect.objectContaining({ currency: 'EUR', date: '2026-01-01', memo: 'Subscription sub-0001', customer: { id: 'cust-1' } }),
        lines: [
          {
            title: 'Pro monthly',
            description: 'Pro',
            periodStart: '2026-01-01',
            periodEnd: '2026-01-31',
            quantity: 3,
            unitAmount: 1000,
            discount: null,
            taxCode: 'standard',
          },
        ],
      });
  });

  it('a shortened period: the whole quantity, less the unused days as a discount (rounded half away from zero)', () => {
    // 3000 × 10 / 31 = 967.74… → 968 billed, 2032 given up.
    given(subscriptionWith([pro]), { 'price-a': priceOf('Pro monthly', 'fee', { unitAmount: 1000 }) })
      .when('2026-01-22T00:00:00.000Z', chargeOf('a', 'advance', '2026-01-22T00:00:00.000Z', { start: '2026-01-22', end: '2026-01-31' }, 10, 31))
      .then({ amounts: { a: 3000n }, lines: [{ quantity: 3, unitAmount: 1000, discount: { amount: 2032 }, periodStart: '2026-01-22' }] });
  });

  it('a tiered price: one line per tier reached, named after its tier', () => {
    const tiers = {
      tiers: [
        { upTo: 2, unitAmount: 500, flatAmount: 0 },
        { upTo: null, unitAmount: 300, flatAmount: 100 },
      ],
    };
    given(subscriptionWith([pro]), { 'price-a': priceOf('Pro tiers', 'graduated', tiers) })
      .when('2026-01-01T00:00:00.000Z', chargeOf('a', 'advance', '2026-01-01T00:00:00.000Z'))
      .then({
        amounts: { a: 1400n },
        lines: [
          { description: 'Pro, tier 1 (0–2)', quantity: 2, unitAmount: 500, discount: null },
          { description: 'Pro, tier 2 (over 2)', quantity: 1, unitAmount: 300, discount: null },
          { description: 'Pro, tier 2 (over 2) flat amount', quantity: 1, unitAmount: 100, discount: null },
        ],
      });
  });

  it('the invoice date is the billAt’s date in the subscription’s time zone', () => {
    given(subscriptionWith([pro], 'Europe/Berlin'), { 'price-a': priceOf('Pro monthly', 'fee', { unitAmount: 1000 }) })
      .when('2025-12-31T23:00:00.000Z', chargeOf('a', 'advance', '2025-12-31T23:00:00.000Z'))
      .then({ invoice: expect.objectContaining({ date: '2026-01-01' }) });
  });

  it('usage: rated, never pro-rated, after the fixed lines (usageLines says where), with the metric as sku', () => {
    const calls = { ...item('u', USAGE), priceName: 'Calls' };
    const arrears = item('b', MONTHLY_ARREARS);
    given(
      subscriptionWith([arrears, calls]),
      { 'price-b': priceOf('Support', 'fee', { unitAmount: 700 }), 'price-u': priceOf('Calls', 'fee', { unitAmount: 2 }) },
      { usage: new Map([['u', ratedAt(1234_0000n, 2)]]) },
    )
      .when(
        '2026-02-01T00:00:00.000Z',
        chargeOf('u', 'event_based', '2026-02-01T00:00:00.000Z', JAN, 20, 31),
        chargeOf('b', 'arrears', '2026-02-01T00:00:00.000Z'),
      )
      .then({
        amounts: { u: 2468n, b: 700n },
        usage: [{ itemId: 'u', period: JAN, quantity: '1234', amount: 2468 }],
        usageLines: { first: 1, count: 1 },
        lines: [
          { title: 'Support', unitAmount: 700 },
          { title: 'Calls', description: 'API calls: 1234', sku: 'calls', quantity: 1234, unitAmount: 2, discount: null },
        ],
      });
  });

  it('late usage of a booked period: one correction line of the difference; an unchanged period none', () => {
    const calls = { ...item('u', USAGE), priceName: 'Calls', taxCode: 'standard' };
    const record: UsageCharge = { itemId: 'u', period: JAN, quantity: '10', amount: 20 };
    const rerated: ReratedPeriod[] = [
      { item: calls, metricName: 'API calls', record, now: { ...record, quantity: '12.5', amount: 25 } },
      {
        item: calls,
        metricName: 'API calls',
        record: { ...record, period: { start: '2025-12-01', end: '2025-12-31' } },
        now: { ...record, period: { start: '2025-12-01', end: '2025-12-31' } },
      },
    ];
    given(subscriptionWith([pro, calls]), { 'price-a': priceOf('Pro monthly', 'fee', { unitAmount: 1000 }) }, { rerated })
      .when('2026-02-01T00:00:00.000Z', chargeOf('a', 'advance', '2026-02-01T00:00:00.000Z', { start: '2026-02-01', end: '2026-02-28' }, 28, 28))
      .then({
        corrections: [{ itemId: 'u', period: JAN, quantity: '12.5', amount: 25, quantityDelta: '2.5', amountDelta: 5 }],
        usageLines: { first: 1, count: 0 },
        lines: [
          { title: 'Pro monthly' },
          {
            title: 'Correction: Calls',
            description: 'API calls: late usage of 2026-01-01 – 2026-01-31: 2.5 (now 12.5)',
            quantity: 1,
            unitAmount: 5,
            sku: null,
            taxCode: 'standard',
          },
        ],
      });
  });

  it('a price without pricing in the currency: that item fails, nothing is composed', () => {
    given(subscriptionWith([pro]), { 'price-a': priceOf('Pro monthly', 'fee', null) })
      .when('2026-01-01T00:00:00.000Z', chargeOf('a', 'advance', '2026-01-01T00:00:00.000Z'))
      .thenFails('a', /price price-a has no pricing in EUR any more/);
  });

  it('usage that could not be rated: the first such charge in due order fails', () => {
    const calls = item('u', USAGE);
    given(
      subscriptionWith([pro, calls]),
      { 'price-a': priceOf('Pro', 'fee', { unitAmount: 1 }), 'price-u': priceOf('Calls', 'fee', { unitAmount: 2 }) },
      {
        usage: new Map([['u', ValidationError.at('/items/u', "the billable metric 'calls' does not exist")]]),
      },
    )
      .when('2026-02-01T00:00:00.000Z', chargeOf('a', 'advance', '2026-02-01T00:00:00.000Z'), chargeOf('u', 'event_based', '2026-02-01T00:00:00.000Z'))
      .thenFails('u', /does not exist/);
  });
});

describe('withUsageLines', () => {
  it('replaces exactly the usage lines, keeping those before and after', () => {
    expect(withUsageLines(['fixed', 'old usage 1', 'old usage 2', 'correction'], { first: 1, count: 2 }, ['new usage'])).toEqual([
      'fixed',
      'new usage',
      'correction',
    ]);
  });
});

describe('composeInvoice with the subscription’s discounts', () => {
  const pro = { ...item('a', MONTHLY_ADVANCE), quantity: '3', taxCode: 'standard' };
  const withDiscounts = (subscription: Subscription, ...discounts: Partial<SubscriptionDiscount>[]): Subscription => ({
    ...subscription,
    discounts: discounts.map((overrides, index) => ({
      id: `d${index}`,
      couponId: `c${index}`,
      promotionCodeId: null,
      promotionCode: null,
      name: 'coupon',
      percentOff: null,
      amountOff: null,
      duration: 'forever',
      durationInMonths: null,
      productIds: null,
      minimumAmount: null,
      start: '2026-01-01',
      end: null,
      endedAt: null,
      ...overrides,
    })),
  });

  it('a pro-rated line: the coupon takes its percentage of what is billed, and the line carries both as one discount amount', () => {
    // 3000 × 10 / 31 → 968 billed (2032 given up); 25 % of 968 = 242; discount 2032 + 242 = 2274, amount 726.
    given(withDiscounts(subscriptionWith([pro]), { percentOff: 25 }), { 'price-a': priceOf('Pro monthly', 'fee', { unitAmount: 1000 }) })
      .when('2026-01-22T00:00:00.000Z', chargeOf('a', 'advance', '2026-01-22T00:00:00.000Z', { start: '2026-01-22', end: '2026-01-31' }, 10, 31))
      .then({ amounts: { a: 3000n }, lines: [{ quantity: 3, unitAmount: 1000, discount: { amount: 2274 } }] });
  });

  it('a discount whose window the invoice period does not start in, or one ended, leaves the lines whole', () => {
    const prices = { 'price-a': priceOf('Pro monthly', 'fee', { unitAmount: 1000 }) };
    const charge = chargeOf('a', 'advance', '2026-01-01T00:00:00.000Z');
    given(withDiscounts(subscriptionWith([pro]), { percentOff: 50, start: '2026-02-01' }), prices)
      .when('2026-01-01T00:00:00.000Z', charge)
      .then({ lines: [{ discount: null }] });
    given(withDiscounts(subscriptionWith([pro]), { percentOff: 50, endedAt: '2025-12-31T00:00:00.000Z' }), prices)
      .when('2026-01-01T00:00:00.000Z', charge)
      .then({ lines: [{ discount: null }] });
  });
});

describe('composeInvoice with the customer record’s discounts', () => {
  const pro = { ...item('a', MONTHLY_ADVANCE), quantity: '1', taxCode: 'standard' };
  const prices = { 'price-a': priceOf('Pro monthly', 'fee', { unitAmount: 2999 }) };
  const charge = chargeOf('a', 'advance', '2026-02-01T00:00:00.000Z', { start: '2026-02-01', end: '2026-02-28' });
  const customerDiscount = (overrides: Partial<CustomerDiscountTerms>): CustomerDiscountTerms => ({
    id: 'cd',
    couponId: 'cc',
    promotionCodeId: null,
    promotionCode: null,
    name: 'customer coupon',
    percentOff: null,
    amountOff: null,
    currency: null,
    duration: 'forever',
    durationInMonths: null,
    productIds: null,
    minimumAmount: null,
    start: '2026-01-20',
    end: null,
    endedAt: null,
    ...overrides,
  });
  const subscription = (): Subscription => ({
    ...subscriptionWith([pro]),
    discounts: [{ ...customerDiscount({ amountOff: 1000 }), id: 'sd', couponId: 'sc', start: '2026-01-01' }],
  });

  it('the subscription’s discounts first, then the customer’s: 2999 − 1000 = 1999, then 20 % of it (399.8 → 400): discount 1400', () => {
    given(subscription(), prices, { customerDiscounts: [customerDiscount({ percentOff: 20 })] })
      .when('2026-02-01T00:00:00.000Z', charge)
      .then({ lines: [{ unitAmount: 2999, discount: { amount: 1400 } }], customerDiscountsUsed: [] });
  });

  it('a once discount in its window is used by the invoice, even below its minimum; one in another currency or window is neither applied nor used', () => {
    const once = customerDiscount({ id: 'once', duration: 'once', amountOff: 300, currency: 'EUR', minimumAmount: 5000 });
    given(subscriptionWith([pro]), prices, { customerDiscounts: [once] })
      .when('2026-02-01T00:00:00.000Z', charge)
      .then({ lines: [{ discount: null }], customerDiscountsUsed: ['once'] });
    given(subscriptionWith([pro]), prices, { customerDiscounts: [{ ...once, minimumAmount: null }] })
      .when('2026-02-01T00:00:00.000Z', charge)
      .then({ lines: [{ discount: { amount: 300 } }], customerDiscountsUsed: ['once'] });
    given(subscriptionWith([pro]), prices, {
      customerDiscounts: [
        { ...once, currency: 'USD' },
        { ...once, id: 'later', start: '2026-02-02' },
      ],
    })
      .when('2026-02-01T00:00:00.000Z', charge)
      .then({ lines: [{ discount: null }], customerDiscountsUsed: [] });
  });
});
