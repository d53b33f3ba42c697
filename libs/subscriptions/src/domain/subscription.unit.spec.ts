import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { SubscriptionBilled, SubscriptionCancelled, SubscriptionEnded, SubscriptionReactivated } from './subscription-events';
import { CreateSubscription, PriceFacts, RequestedItem } from './subscription-commands';
import { decideCancelSubscription, decideCreateSubscription, decideReactivateSubscription } from './subscription-decisions';
import { subscriptionEvolver } from './subscription';
import { MONTHLY_ADVANCE, ONE_TIME, PRODUCT, SUBSCRIPTION_ID, WEEKLY_ADVANCE, created, item, priceFacts } from './subscription.arbitraries';

const spec = deciderSpec(subscriptionEvolver);
const NOW = '2026-01-01T09:00:00.000Z';
const invalidAt = (pointer: string, detail?: string) => ({
  kind: 'validation',
  errors: [detail === undefined ? expect.objectContaining({ pointer }) : { pointer, detail }],
});

const cancelled = (cancelAt: string, cancelledAt = '2026-03-05T12:00:00.000Z'): SubscriptionCancelled => ({
  type: 'SubscriptionCancelled',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, cancelAt, cancelledAt },
});
const billedThrough = (itemId: string, start: string, end: string, billAt: string): SubscriptionBilled => ({
  type: 'SubscriptionBilled',
  schemaVersion: 1,
  data: {
    subscriptionId: SUBSCRIPTION_ID,
    invoiceId: 'inv-1',
    billAt,
    lines: [{ itemId, kind: 'advance', period: { start, end }, daysUsed: 7, daysInFullPeriod: 7, fullAmount: 100, amount: 100 }],
    billedAt: billAt,
  },
});
const ended: SubscriptionEnded = {
  type: 'SubscriptionEnded',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, endedAt: '2026-03-31T00:00:00.000Z' },
};

// ---------------------------------------------------------------- create

describe('decideCreateSubscription', () => {
  const monthly = priceFacts();
  const setup = priceFacts({ id: 'price-setup', name: 'Setup', purchase: 'one_time', termCount: null, termUnit: null });
  const command = (overrides: Partial<CreateSubscription> = {}): CreateSubscription => ({
    subscriptionId: SUBSCRIPTION_ID,
    handle: 'sub-0001',
    customer: { id: 'cust-1', name: 'Acme' },
    currency: 'EUR',
    term: { start: '2026-01-31', end: '2027-01-30' },
    autoRenewal: true,
    timeZone: 'europe/helsinki',
    items: [
      { priceId: monthly.id, price: monthly, quantity: 1.5, taxCode: 'VAT25' },
      { priceId: setup.id, price: setup, quantity: '2.0000' },
    ],
    ...overrides,
  });
  const withItem = (overrides: Partial<RequestedItem>, price: Partial<PriceFacts> = {}) =>
    command({ items: [{ priceId: 'price-x', price: priceFacts({ id: 'price-x', ...price }), quantity: 1, ...overrides }] });

  it('captures each price schedule, canonical quantities, the lowercase currency and the canonical zone', () => {
    spec
      .given([])
      .when((state) => decideCreateSubscription(command(), state, metadataAt(NOW)))
      .then([
        {
          type: 'SubscriptionCreated',
          schemaVersion: 1,
          data: {
            subscriptionId: SUBSCRIPTION_ID,
            handle: 'sub-0001',
            customer: { id: 'cust-1', name: 'Acme' },
            currency: 'eur',
            timeZone: 'Europe/Helsinki',
            term: { start: '2026-01-31', end: '2027-01-30' },
            termLength: { count: 12, unit: 'month' },
            autoRenewal: true,
            paymentMethod: null,
            items: [
              {
                id: 'id-1',
                priceId: 'price-monthly',
                priceName: 'Pro monthly',
                product: PRODUCT,
                quantity: '1.5',
                taxCode: 'VAT25',
                schedule: MONTHLY_ADVANCE,
              },
              { id: 'id-2', priceId: 'price-setup', priceName: 'Setup', product: PRODUCT, quantity: '2', taxCode: null, schedule: ONE_TIME },
            ],
            createdAt: NOW,
          },
        },
      ]);
  });

  it('a usage-based price whose metric exists: the item bills the metric in arrears of each period', () => {
    const [event] = decideCreateSubscription(
      withItem({}, { billingTiming: 'event_based', metricCode: 'calls', metricExists: true }),
      { status: 'none' },
      metadataAt(NOW),
    );
    expect(event.data.items[0].schedule).toEqual({ purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'event_based', metricCode: 'calls' });
  });

  it('an evergreen term has no length; time zone defaults to UTC, autoRenewal to false', () => {
    const [event] = decideCreateSubscription(
      command({ term: { start: '2026-01-31' }, timeZone: undefined, autoRenewal: undefined }),
      { status: 'none' },
      metadataAt(NOW),
    );
    expect(event.data).toMatchObject({ term: { start: '2026-01-31', end: null }, termLength: null, timeZone: 'UTC', autoRenewal: false });
  });

  it('refuses a second create on the stream', () => {
    spec
      .given([created()])
      .when((state) => decideCreateSubscription(command(), state, metadataAt(NOW)))
      .thenThrows({ kind: 'conflict', code: 'subscription-exists' });
  });

  it.each<[string, CreateSubscription, ReturnType<typeof invalidAt>]>([
    ['an unsupported currency', command({ currency: 'xau' }), invalidAt('/currency')],
    ['an unknown time zone', command({ timeZone: 'Europe/Atlantis' }), invalidAt('/timeZone')],
    ['an invalid start', command({ term: { start: '2026-02-30', end: null } }), invalidAt('/term/start')],
    ['an invalid end', command({ term: { start: '2026-02-01', end: '2026-13-01' } }), invalidAt('/term/end')],
    ['an end before the start', command({ term: { start: '2026-02-01', end: '2026-01-31' } }), invalidAt('/term/end', 'must not be before term.start')],
    ['no items', command({ items: [] }), invalidAt('/items', 'must have between 1 and 50 items')],
    ['51 items', command({ items: Array.from({ length: 51 }, () => ({ priceId: 'price-monthly', price: priceFacts(), quantity: 1 })) }), invalidAt('/items')],
    ['a zero quantity', withItem({ quantity: 0 }), invalidAt('/items/0/quantity', 'must be greater than 0')],
    ['a negative quantity', withItem({ quantity: '-1' }), invalidAt('/items/0/quantity')],
    ['five decimals', withItem({ quantity: 1.00001 }), invalidAt('/items/0/quantity', 'must have at most 4 decimal places')],
    ['an unknown price', withItem({ price: null }), invalidAt('/items/0/priceId', 'no price price-x exists in this environment')],
    ['an archived price', withItem({}, { archived: true }), invalidAt('/items/0/priceId')],
    [
      'a usage-based price whose billable metric does not exist',
      withItem({}, { billingTiming: 'event_based', metricCode: 'calls', metricExists: false }),
      invalidAt('/items/0/priceId', "price price-x bills the billable metric 'calls', which does not exist in this environment (POST /billable-metrics)"),
    ],
    ['a price of no product', withItem({}, { product: null }), invalidAt('/items/0/priceId')],
    [
      'a price without pricing in the currency',
      withItem({}, { currencies: ['usd'] }),
      invalidAt('/items/0/priceId', "price price-x has no pricing in 'eur' (it has: usd)"),
    ],
    ['a recurring price without a term', withItem({}, { termUnit: null }), invalidAt('/items/0/priceId')],
  ])('refuses %s with a 422 at its pointer', (_, bad, error) => {
    spec
      .given([])
      .when((state) => decideCreateSubscription(bad, state, metadataAt(NOW)))
      .thenThrows(error);
  });

  it('reports every problem at once', () => {
    const bad = command({ currency: 'xxx', items: [{ priceId: 'p', price: null, quantity: 0 }] });
    spec
      .given([])
      .when((state) => decideCreateSubscription(bad, state, metadataAt(NOW)))
      .thenThrows({
        errors: [
          expect.objectContaining({ pointer: '/currency' }),
          expect.objectContaining({ pointer: '/items/0/quantity' }),
          expect.objectContaining({ pointer: '/items/0/priceId' }),
        ],
      });
  });
});

// ---------------------------------------------------------------- cancel

describe('decideCancelSubscription', () => {
  const cancel = (now: string) => (state: Parameters<typeof decideCancelSubscription>[1]) =>
    decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt(now));
  const cancelledOn = (cancelAt: string, now: string) => [cancelled(cancelAt, now)];

  it('a missing subscription is a 404', () => {
    spec.given([]).when(cancel(NOW)).thenThrows({ kind: 'not_found' });
  });

  it('runs to the end of the current period (anchor Jan 31, monthly: Feb 28 – Mar 30)', () => {
    spec.given([created()]).when(cancel('2026-03-05T12:00:00.000Z')).then(cancelledOn('2026-03-30', '2026-03-05T12:00:00.000Z'));
  });

  it('takes today in the subscription zone (already Mar 31 in Helsinki)', () => {
    spec
      .given([created({ timeZone: 'Europe/Helsinki' })])
      .when(cancel('2026-03-30T21:30:00.000Z'))
      .then(cancelledOn('2026-04-29', '2026-03-30T21:30:00.000Z'));
  });

  it('with several items, the latest current-period end, so no advance payment is cut short', () => {
    const items = [item('a', MONTHLY_ADVANCE), item('w', WEEKLY_ADVANCE)];
    // weekly periods from Jan 31: … Mar 28 – Apr 3 holds Mar 30 (monthly ends Mar 30)
    spec
      .given([created({ items })])
      .when(cancel('2026-03-30T12:00:00.000Z'))
      .then(cancelledOn('2026-04-03', '2026-03-30T12:00:00.000Z'));
  });

  it('never before a day already billed (the engine billed ahead of this command’s clock)', () => {
    const items = [item('w', WEEKLY_ADVANCE)];
    spec
      .given([created({ items }), billedThrough('w', '2026-02-07', '2026-02-13', '2026-02-07T00:00:00.000Z')])
      .when(cancel('2026-02-05T12:00:00.000Z'))
      .then(cancelledOn('2026-02-13', '2026-02-05T12:00:00.000Z'));
  });

  it('is capped at the end of the term', () => {
    spec
      .given([created({ term: { start: '2026-01-31', end: '2026-03-15' } })])
      .when(cancel('2026-03-05T12:00:00.000Z'))
      .then(cancelledOn('2026-03-15', '2026-03-05T12:00:00.000Z'));
  });

  it('before the start: the first period', () => {
    spec.given([created()]).when(cancel('2026-01-10T12:00:00.000Z')).then(cancelledOn('2026-02-27', '2026-01-10T12:00:00.000Z'));
  });

  it('only one-time items: service ends today, or on the first day if not started', () => {
    const items = [item('s', ONE_TIME)];
    spec
      .given([created({ items })])
      .when(cancel('2026-02-10T12:00:00.000Z'))
      .then(cancelledOn('2026-02-10', '2026-02-10T12:00:00.000Z'));
    spec
      .given([created({ items })])
      .when(cancel('2026-01-10T12:00:00.000Z'))
      .then(cancelledOn('2026-01-31', '2026-01-10T12:00:00.000Z'));
  });

  it('counts a renewal the engine has not recorded yet: the term in force today is the renewed one', () => {
    const history = [created({ term: { start: '2026-01-01', end: '2026-01-31' }, autoRenewal: true, items: [item('a', WEEKLY_ADVANCE)] })];
    // weekly from Jan 1: Feb 5 – Feb 11 holds Feb 6; the Jan term would have capped it at Jan 31
    spec.given(history).when(cancel('2026-02-06T12:00:00.000Z')).then(cancelledOn('2026-02-11', '2026-02-06T12:00:00.000Z'));
  });

  it('cancelling a cancelled subscription changes nothing', () => {
    spec
      .given([created(), cancelled('2026-03-30')])
      .when(cancel('2026-03-10T12:00:00.000Z'))
      .then([]);
  });

  it('an ended subscription is a 409 subscription-ended, also before the engine recorded the end', () => {
    spec
      .given([created(), cancelled('2026-03-30'), ended])
      .when(cancel('2026-04-05T12:00:00.000Z'))
      .thenThrows({ kind: 'conflict', code: 'subscription-ended' });
    spec
      .given([created({ term: { start: '2026-01-31', end: '2026-03-30' } })])
      .when(cancel('2026-03-31T00:00:00.000Z'))
      .thenThrows({ code: 'subscription-ended' });
  });
});

// ---------------------------------------------------------------- reactivate

describe('decideReactivateSubscription', () => {
  const reactivate = (now: string) => (state: Parameters<typeof decideReactivateSubscription>[1]) =>
    decideReactivateSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt(now));
  const reactivated = (at: string): SubscriptionReactivated => ({
    type: 'SubscriptionReactivated',
    schemaVersion: 1,
    data: { subscriptionId: SUBSCRIPTION_ID, reactivatedAt: at },
  });

  it('a missing subscription is a 404', () => {
    spec.given([]).when(reactivate(NOW)).thenThrows({ kind: 'not_found' });
  });

  it('undoes a cancellation up to the last day of service', () => {
    spec
      .given([created(), cancelled('2026-03-30')])
      .when(reactivate('2026-03-30T23:59:59.000Z'))
      .then([reactivated('2026-03-30T23:59:59.000Z')]);
  });

  it('an active subscription is a 409 subscription-not-cancelled', () => {
    spec.given([created()]).when(reactivate(NOW)).thenThrows({ kind: 'conflict', code: 'subscription-not-cancelled' });
    spec
      .given([created(), cancelled('2026-03-30'), reactivated('2026-03-10T00:00:00.000Z')])
      .when(reactivate(NOW))
      .thenThrows({ code: 'subscription-not-cancelled' });
  });

  it('from the day after cancelAt it has ended: 409 subscription-ended, recorded or not', () => {
    spec
      .given([created(), cancelled('2026-03-30')])
      .when(reactivate('2026-03-31T00:00:00.000Z'))
      .thenThrows({ kind: 'conflict', code: 'subscription-ended' });
    spec
      .given([created(), cancelled('2026-03-30'), ended])
      .when(reactivate('2026-04-01T00:00:00.000Z'))
      .thenThrows({ code: 'subscription-ended' });
  });
});
