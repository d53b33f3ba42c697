import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { decideBillDue } from './billing-decisions';
import { SubscriptionDiscountApplied, SubscriptionEvent } from './subscription-events';
import { decideApplyDiscounts, decideEndDiscount } from './subscription-decisions';
import { RedeemedDiscountTerms } from './subscription-commands';
import { subscriptionEvolver } from './subscription';
import { created, SUBSCRIPTION_ID } from './subscription.arbitraries';

const spec = deciderSpec(subscriptionEvolver);
const T0 = '2026-01-20T12:00:00.000Z';
const terms = (overrides: Partial<RedeemedDiscountTerms> = {}): RedeemedDiscountTerms => ({
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
  ...overrides,
});
const start = created({ term: { start: '2026-01-31', end: null } });
const applied = (overrides: Partial<RedeemedDiscountTerms> = {}, end: string | null = '2026-04-29'): SubscriptionDiscountApplied => ({
  type: 'SubscriptionDiscountApplied',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, discount: { ...terms(overrides), start: '2026-01-31', end, endedAt: null }, appliedAt: T0 },
});

describe('discounts on the Subscription decider', () => {
  it('given a subscription, when discounts are applied, then each starts with the term; repeating ends the day before the period durationInMonths later (Jan 31 + 3 months: Apr 30, so Apr 29), once and forever open', () => {
    spec
      .given([start])
      .when((state) =>
        decideApplyDiscounts(
          { subscriptionId: SUBSCRIPTION_ID, discounts: [terms(), terms({ id: 'd2', duration: 'once', durationInMonths: null })] },
          state,
          metadataAt(T0),
        ),
      )
      .then([applied(), applied({ id: 'd2', duration: 'once', durationInMonths: null }, null)]);
  });

  it('given an applied discount, when ended, then it ends today; again, then 409 discount-ended; unknown, then 404', () => {
    const ended: SubscriptionEvent = {
      type: 'SubscriptionDiscountEnded',
      schemaVersion: 1,
      data: { subscriptionId: SUBSCRIPTION_ID, discountId: 'd1', reason: 'removed', end: '2026-02-10', endedAt: '2026-02-10T08:00:00.000Z' },
    };
    spec
      .given([start, applied()])
      .when((state) => decideEndDiscount({ subscriptionId: SUBSCRIPTION_ID, discountId: 'd1' }, state, metadataAt('2026-02-10T08:00:00.000Z')))
      .then([ended]);
    spec
      .given([start, applied(), ended])
      .when((state) => decideEndDiscount({ subscriptionId: SUBSCRIPTION_ID, discountId: 'd1' }, state, metadataAt(T0)))
      .thenThrows({ code: 'discount-ended' });
    spec
      .given([start, applied()])
      .when((state) => decideEndDiscount({ subscriptionId: SUBSCRIPTION_ID, discountId: 'dx' }, state, metadataAt(T0)))
      .thenThrows({ code: 'not-found' });
    const state = foldEvents(subscriptionEvolver, [start, applied(), ended]);
    expect(state.status !== 'none' && state.discounts).toEqual([{ ...applied().data.discount, end: '2026-02-10', endedAt: '2026-02-10T08:00:00.000Z' }]);
  });

  it('given a once discount, when the next charges are billed, then SubscriptionDiscountEnded (used) follows SubscriptionBilled; a repeating one stays', () => {
    const once = applied({ id: 'd2', duration: 'once', durationInMonths: null }, null);
    const events = decideBillDue(
      { subscriptionId: SUBSCRIPTION_ID, billAt: new Date('2026-01-31T00:00:00.000Z'), invoiceId: 'inv-1', amounts: { a: 1000n } },
      foldEvents(subscriptionEvolver, [start, applied(), once]),
      metadataAt('2026-01-31T00:00:00.000Z'),
    );
    expect(events.map((event) => event.type)).toEqual(['SubscriptionBilled', 'SubscriptionDiscountEnded']);
    expect(events[1].data).toEqual({
      subscriptionId: SUBSCRIPTION_ID,
      discountId: 'd2',
      reason: 'used',
      end: '2026-01-31',
      endedAt: '2026-01-31T00:00:00.000Z',
    });
  });
});
