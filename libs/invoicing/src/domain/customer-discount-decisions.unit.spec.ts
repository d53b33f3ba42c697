import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { CustomerCreated, CustomerEvent, customerEvolver } from './customer';
import { decideApplyCustomerDiscounts, decideEndCustomerDiscount, decideUseCustomerDiscounts } from './customer-discount-decisions';
import { CustomerDiscountApplied, CustomerDiscountEnded, RedeemedCustomerDiscount } from './customer-discounts';

const spec = deciderSpec(customerEvolver);
const ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
// 22:30 UTC on Jan 31 is already Feb 1 in Helsinki: the window starts on the customer's local date.
const APPLIED_AT = '2026-01-31T22:30:00.000Z';
const created: CustomerCreated = {
  type: 'CustomerCreated',
  schemaVersion: 1,
  data: {
    customerId: ID,
    handle: 'acme',
    name: 'Acme Oy',
    email: null,
    billingAddress: { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null },
    taxIds: [],
    locale: 'en',
    timeZone: 'Europe/Helsinki',
    currency: 'EUR',
    invoiceSettings: { templateGroupId: null, footer: null, paymentTermsDays: null },
    defaultPaymentMethod: null,
    metadata: {},
    createdAt: '2026-01-01T00:00:00.000Z',
  },
};
const archived: CustomerEvent = { type: 'CustomerArchived', schemaVersion: 1, data: { customerId: ID, archivedAt: '2026-01-02T00:00:00.000Z' } };
const terms = (overrides: Partial<RedeemedCustomerDiscount> = {}): RedeemedCustomerDiscount => ({
  id: 'd1',
  couponId: 'c1',
  promotionCodeId: null,
  promotionCode: null,
  name: '20 %',
  percentOff: 20,
  amountOff: null,
  currency: null,
  duration: 'repeating',
  durationInMonths: 3,
  productIds: null,
  minimumAmount: null,
  ...overrides,
});
const applied = (overrides: Partial<RedeemedCustomerDiscount> = {}, end: string | null = '2026-04-30'): CustomerDiscountApplied => ({
  type: 'CustomerDiscountApplied',
  schemaVersion: 1,
  data: { customerId: ID, discount: { ...terms(overrides), start: '2026-02-01', end, endedAt: null }, appliedAt: APPLIED_AT },
});
const once = { id: 'd2', couponId: 'c2', duration: 'once', durationInMonths: null, amountOff: 300, percentOff: null, currency: 'EUR' } as const;

describe('discounts on the Customer decider', () => {
  it('given a customer, when discounts are applied, then each starts on today in its zone; repeating ends the day before start + months; once and forever open', () => {
    spec
      .given([created])
      .when((state) => decideApplyCustomerDiscounts({ customerId: ID, discounts: [terms(), terms(once)] }, state, metadataAt(APPLIED_AT)))
      .then([applied(), applied(once, null)]);
  });

  it('given no discounts to apply, then nothing; given an archived customer, then 409 customer-archived', () => {
    spec
      .given([created])
      .when((state) => decideApplyCustomerDiscounts({ customerId: ID, discounts: [] }, state, metadataAt(APPLIED_AT)))
      .then([]);
    spec
      .given([created, archived])
      .when((state) => decideApplyCustomerDiscounts({ customerId: ID, discounts: [terms()] }, state, metadataAt(APPLIED_AT)))
      .thenThrows({ code: 'customer-archived' });
  });

  it('given a coupon running on the customer, when applied again, then 422 at its index; an ended one may be applied again', () => {
    spec
      .given([created, applied()])
      .when((state) => decideApplyCustomerDiscounts({ customerId: ID, discounts: [terms(once), terms({ id: 'd3' })] }, state, metadataAt(APPLIED_AT)))
      .thenThrows({ kind: 'validation', errors: [{ pointer: '/discounts/1', detail: expect.any(String) }] });
    const ended: CustomerDiscountEnded = {
      type: 'CustomerDiscountEnded',
      schemaVersion: 1,
      data: { customerId: ID, discountId: 'd1', reason: 'removed', invoiceId: null, end: '2026-02-01', endedAt: APPLIED_AT },
    };
    spec
      .given([created, applied(), ended])
      .when((state) => decideApplyCustomerDiscounts({ customerId: ID, discounts: [terms({ id: 'd3' })] }, state, metadataAt(APPLIED_AT)))
      .then([applied({ id: 'd3' })]);
  });

  it('given 4 running, when 2 more are applied, then 422 at /discounts (at most 5 running)', () => {
    const running = [1, 2, 3, 4].map((n) => applied({ id: `d${n}`, couponId: `c${n}` }));
    spec
      .given([created, ...running])
      .when((state) =>
        decideApplyCustomerDiscounts(
          { customerId: ID, discounts: [terms({ id: 'd5', couponId: 'c5' }), terms({ id: 'd6', couponId: 'c6' })] },
          state,
          metadataAt(APPLIED_AT),
        ),
      )
      .thenThrows({ kind: 'validation', errors: [{ pointer: '/discounts', detail: expect.any(String) }] });
  });

  it('given an applied discount, when ended, then its end is today (customer zone); again, then 409 discount-ended; unknown, then 404', () => {
    const ended: CustomerDiscountEnded = {
      type: 'CustomerDiscountEnded',
      schemaVersion: 1,
      data: { customerId: ID, discountId: 'd1', reason: 'removed', invoiceId: null, end: '2026-02-10', endedAt: '2026-02-10T08:00:00.000Z' },
    };
    spec
      .given([created, applied()])
      .when((state) => decideEndCustomerDiscount({ customerId: ID, discountId: 'd1' }, state, metadataAt('2026-02-10T08:00:00.000Z')))
      .then([ended]);
    spec
      .given([created, applied(), ended])
      .when((state) => decideEndCustomerDiscount({ customerId: ID, discountId: 'd1' }, state, metadataAt('2026-02-11T08:00:00.000Z')))
      .thenThrows({ code: 'discount-ended' });
    spec
      .given([created, applied()])
      .when((state) => decideEndCustomerDiscount({ customerId: ID, discountId: 'nope' }, state, metadataAt(APPLIED_AT)))
      .thenThrows({ kind: 'not_found' });
  });

  it('given a repeating discount whose window is over, when ended, then its end stays its last day', () => {
    spec
      .given([created, applied()])
      .when((state) => decideEndCustomerDiscount({ customerId: ID, discountId: 'd1' }, state, metadataAt('2026-06-01T08:00:00.000Z')))
      .then([
        {
          type: 'CustomerDiscountEnded',
          schemaVersion: 1,
          data: { customerId: ID, discountId: 'd1', reason: 'removed', invoiceId: null, end: '2026-04-30', endedAt: '2026-06-01T08:00:00.000Z' },
        },
      ]);
  });

  it('given an open once discount, when an invoice uses it, then it ends on the invoice date; used again or not once, then 409 customer-discount-ended', () => {
    const used: CustomerDiscountEnded = {
      type: 'CustomerDiscountEnded',
      schemaVersion: 1,
      data: { customerId: ID, discountId: 'd2', reason: 'used', invoiceId: 'i1', end: '2026-03-01', endedAt: '2026-03-01T00:00:00.000Z' },
    };
    const use = (invoiceId: string, discountId = 'd2') => ({ customerId: ID, invoiceId, date: '2026-03-01', discountIds: [discountId] });
    spec
      .given([created, applied(once, null)])
      .when((state) => decideUseCustomerDiscounts(use('i1'), state, metadataAt('2026-03-01T00:00:00.000Z')))
      .then([used]);
    spec
      .given([created, applied(once, null), used])
      .when((state) => decideUseCustomerDiscounts(use('i2'), state, metadataAt('2026-03-01T00:00:00.000Z')))
      .thenThrows({ code: 'customer-discount-ended' });
    spec
      .given([created, applied()])
      .when((state) => decideUseCustomerDiscounts(use('i2', 'd1'), state, metadataAt('2026-03-01T00:00:00.000Z')))
      .thenThrows({ code: 'customer-discount-ended' });
  });

  it('the customer folds its discounts in order, their end with the ended event, and keeps updatedAt (discounts are not its own fields)', () => {
    const ended: CustomerDiscountEnded = {
      type: 'CustomerDiscountEnded',
      schemaVersion: 1,
      data: { customerId: ID, discountId: 'd1', reason: 'removed', invoiceId: null, end: '2026-02-10', endedAt: '2026-02-10T08:00:00.000Z' },
    };
    spec
      .given([created, applied(), applied(once, null), ended])
      .when((state) => state)
      .then(
        expect.objectContaining({
          updatedAt: null,
          discounts: [{ ...applied().data.discount, end: '2026-02-10', endedAt: '2026-02-10T08:00:00.000Z' }, applied(once, null).data.discount],
        }),
      );
  });
});
