import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { nextDue } from './billing';
import { proratedItem } from './billing-decisions';
import {
  ChangeItems,
  ChangePrices,
  decideApplyScheduledChange,
  decideBillProrations,
  decideChangeItems,
  decideDropChange,
  RequestedItemChange,
} from './changes';
import { priceOf } from './invoice-composition.arbitraries';
import { ProrationBehavior } from './proration-behavior';
import { decidePauseSubscription } from './pause';
import { ItemsChange, SubscriptionBilled, SubscriptionEvent, SubscriptionItem, SubscriptionPaused } from './subscription-events';
import { Subscription, SubscriptionState, subscriptionEvolver } from './subscription';
import { MONTHLY_ADVANCE, MONTHLY_ARREARS, SUBSCRIPTION_ID, created, item, priceFacts, runEngineTo } from './subscription.arbitraries';

/** Given a subscription's history, when its items change, then these events (README: Changing items). */

const spec = deciderSpec(subscriptionEvolver);
const JAN1 = '2026-01-01T00:00:00.000Z';
const JAN20 = '2026-01-20T10:00:00.000Z';
/** Pro 3100 (price-a, price-b), Premium 6200, Extra 3100 a month. */
const PRICES: ChangePrices = new Map([
  ['price-a', priceOf('Pro', 'fee', { unitAmount: 3100 })],
  ['price-b', priceOf('Support', 'fee', { unitAmount: 3100 })],
  ['price-premium', priceOf('Premium', 'fee', { unitAmount: 6200 })],
]);
const premium = { priceId: 'price-premium', price: priceFacts({ id: 'price-premium', name: 'Premium' }) };
const both = created({ term: { start: '2026-01-01', end: null }, items: [item('a', MONTHLY_ADVANCE), item('b', MONTHLY_ARREARS)] });
const billedJanuary: SubscriptionBilled = {
  type: 'SubscriptionBilled',
  schemaVersion: 1,
  data: {
    subscriptionId: SUBSCRIPTION_ID,
    invoiceId: 'inv-jan',
    billAt: JAN1,
    lines: [
      { itemId: 'a', kind: 'advance', period: { start: '2026-01-01', end: '2026-01-31' }, daysUsed: 31, daysInFullPeriod: 31, fullAmount: 3100, amount: 3100 },
    ],
    billedAt: JAN1,
  },
};

function change(items: RequestedItemChange[], prorationBehavior: ProrationBehavior = 'create_prorations', effective = 'now'): ChangeItems {
  return { subscriptionId: SUBSCRIPTION_ID, changeId: 'change-1', items, effective, prorationBehavior };
}
const decide =
  (command: ChangeItems, now = JAN20) =>
  (state: SubscriptionState) =>
    decideChangeItems(command, state, metadataAt(now), PRICES);
const premiumA: SubscriptionItem = { ...item('a', MONTHLY_ADVANCE), priceId: 'price-premium', priceName: 'Premium' };
const itemsChange = (changes: ItemsChange['changes'], prorationBehavior: ProrationBehavior = 'create_prorations', requestedAt = JAN20): ItemsChange => ({
  id: 'change-1',
  date: '2026-01-20',
  effectiveAt: JAN20,
  prorationBehavior,
  changes,
  requestedAt,
});
/** Jan 20 – 31: 12 of 31 days. */
const REST = { start: '2026-01-20', end: '2026-01-31' };

describe('decideChangeItems: effective now', () => {
  it('an advance item to a dearer price: a credit of its billed remainder (3100 × 12 ÷ 31 = 1200) and a charge of the same days (6200 × 12 ÷ 31 = 2400)', () => {
    spec
      .given([both, billedJanuary])
      .when(decide(change([{ id: 'a', ...premium }])))
      .then([
        {
          type: 'SubscriptionItemsChanged',
          schemaVersion: 1,
          data: {
            subscriptionId: SUBSCRIPTION_ID,
            change: itemsChange([{ action: 'update', item: premiumA }]),
            items: [premiumA, item('b', MONTHLY_ARREARS)],
            billedThrough: {},
            advanceBilled: { a: { period: { start: '2026-01-01', end: '2026-01-31' }, daysInFullPeriod: 31, fullAmount: 6200 } },
            prorations: [
              {
                itemId: 'a',
                kind: 'credit',
                reason: 'change',
                item: proratedItem(item('a', MONTHLY_ADVANCE)),
                period: REST,
                days: 12,
                daysInFullPeriod: 31,
                fullAmount: 3100,
                amount: 1200,
              },
              {
                itemId: 'a',
                kind: 'charge',
                reason: 'change',
                item: proratedItem(premiumA),
                period: REST,
                days: 12,
                daysInFullPeriod: 31,
                fullAmount: 6200,
                amount: 2400,
              },
            ],
            changedAt: JAN20,
          },
        },
      ]);
  });

  it('none: the items change, nothing is prorated, the billed piece keeps its amount', () => {
    const [event] = decide(change([{ id: 'a', ...premium }], 'none'))(foldEvents(subscriptionEvolver, [both, billedJanuary]));
    expect(event.type).toBe('SubscriptionItemsChanged');
    expect(event.data).toMatchObject({ items: [premiumA, item('b', MONTHLY_ARREARS)], billedThrough: {}, advanceBilled: {}, prorations: [] });
  });

  it('an arrears item changed or deleted bills its days before the change at the old price (3100 × 19 ÷ 31 = 1900), whatever the behaviour', () => {
    for (const behavior of ['create_prorations', 'none'] as const) {
      const [event] = decide(change([{ id: 'b', delete: true }], behavior))(foldEvents(subscriptionEvolver, [both, billedJanuary]));
      expect(event.data).toMatchObject({
        items: [item('a', MONTHLY_ADVANCE)],
        billedThrough: { b: '2026-01-19' },
        prorations: [{ itemId: 'b', kind: 'charge', reason: 'used_before_change', period: { start: '2026-01-01', end: '2026-01-19' }, days: 19, amount: 1900 }],
      });
    }
  });

  it('an added advance item: a charge to the end of its period, billed through it; none: free until its next period', () => {
    const added = { priceId: 'price-a', price: priceFacts({ id: 'price-a', name: 'Price a' }), quantity: 2 };
    const state = foldEvents(subscriptionEvolver, [both, billedJanuary]);
    const [prorated] = decide(change([added]))(state);
    expect(prorated.data).toMatchObject({
      billedThrough: { 'id-1': '2026-01-31' },
      advanceBilled: { 'id-1': { period: REST, daysInFullPeriod: 31, fullAmount: 6200 } },
      prorations: [{ itemId: 'id-1', kind: 'charge', period: REST, days: 12, fullAmount: 6200, amount: 2400, item: { quantity: '2' } }],
    });
    const [free] = decide(change([added], 'none'))(state);
    expect(free.data).toMatchObject({ billedThrough: { 'id-1': '2026-01-31' }, advanceBilled: {}, prorations: [] });
  });

  it('an item added on the first day of a period is billed by its regular charge (no proration line)', () => {
    const added = { priceId: 'price-a', price: priceFacts({ id: 'price-a' }) };
    const [event] = decide(
      change([added]),
      '2026-02-01T00:00:00.000Z',
    )(
      foldEvents(subscriptionEvolver, [
        both,
        billedJanuary,
        {
          ...billedJanuary,
          data: { ...billedJanuary.data, invoiceId: 'inv-feb', billAt: '2026-02-01T00:00:00.000Z', lines: [], billedAt: '2026-02-01T00:00:00.000Z' },
        },
      ]),
    );
    expect(event.data).toMatchObject({ billedThrough: { 'id-1': '2026-01-31' }, prorations: [] });
  });

  it('within a trial nothing was billed or used: the items just change', () => {
    const trial = created({ term: { start: '2026-01-01', end: null }, trialEnd: '2026-01-31', items: [item('a', MONTHLY_ADVANCE)] });
    const [event] = decide(change([{ id: 'a', ...premium }]))(foldEvents(subscriptionEvolver, [trial]));
    expect(event.data).toMatchObject({ items: [premiumA], billedThrough: {}, advanceBilled: {}, prorations: [] });
  });
});

describe('decideChangeItems: scheduled', () => {
  it('a date after today: SubscriptionChangeScheduled with the items as they will be; GET shows it in pendingChanges', () => {
    const scheduled = decide(change([{ id: 'a', ...premium }], 'none', '2026-01-25'))(foldEvents(subscriptionEvolver, [both, billedJanuary]));
    expect(scheduled).toEqual([
      {
        type: 'SubscriptionChangeScheduled',
        schemaVersion: 1,
        data: {
          subscriptionId: SUBSCRIPTION_ID,
          change: { ...itemsChange([{ action: 'update', item: premiumA }], 'none'), date: '2026-01-25', effectiveAt: '2026-01-25T00:00:00.000Z' },
        },
      },
    ]);
    const state = foldEvents(subscriptionEvolver, [both, billedJanuary, ...scheduled]) as Subscription;
    expect(state.pendingChanges).toEqual([scheduled[0].data.change]);
  });

  it('period_end: the day after the current period (Feb 1), in the subscription’s time zone', () => {
    const helsinki = created({ term: { start: '2026-01-01', end: null }, timeZone: 'Europe/Helsinki', items: [item('a', MONTHLY_ADVANCE)] });
    const [event] = decide(change([{ id: 'a', quantity: 2 }], 'create_prorations', 'period_end'))(foldEvents(subscriptionEvolver, [helsinki]));
    expect(event.data).toMatchObject({ change: { date: '2026-02-01', effectiveAt: '2026-01-31T22:00:00.000Z' } });
  });
});

describe('decideChangeItems: refusals', () => {
  it('422: every invalid member at once', () => {
    spec
      .given([both, billedJanuary])
      .when(decide({ ...change([{ id: 'nope', quantity: 2 }, { quantity: 1 }, { id: 'a', quantity: 0 }]), effective: '2026-01-19' }))
      .thenThrows({ kind: 'validation', code: 'validation-failed' });
    let thrown: { errors: { pointer: string }[] } | null = null;
    try {
      decide({ ...change([{ id: 'nope', quantity: 2 }, { quantity: 1 }, { id: 'a', quantity: 0 }]), effective: '2026-01-19' })(
        foldEvents(subscriptionEvolver, [both, billedJanuary]),
      );
    } catch (error) {
      thrown = error as typeof thrown;
    }
    expect(thrown!.errors.map((error) => error.pointer)).toEqual(['/effective', '/items/0/id', '/items/1/priceId', '/items/2/quantity']);
  });

  it('422: a usage-based (event_based) item is neither changed nor deleted, and no usage-based price is added or put on an item', () => {
    const usage: SubscriptionItem = {
      ...item('u', { purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'event_based', metricCode: 'calls' }),
      priceId: 'price-calls',
    };
    // As the change handler gives it: the catalog's facts, without looking up whether the metric exists.
    const calls = { priceId: 'price-calls', price: priceFacts({ id: 'price-calls', name: 'Calls', billingTiming: 'event_based', metricCode: 'calls' }) };
    const itemDetail = 'a usage-based (event_based) item cannot be changed';
    const priceDetail = 'a usage-based (event_based) price cannot be added by a change, nor replace an item’s price';
    spec
      .given([created({ term: { start: '2026-01-01', end: null }, items: [item('a', MONTHLY_ADVANCE), usage] }), billedJanuary])
      .when(decide(change([{ id: 'u', quantity: 2 }, { id: 'a', ...calls }, calls])))
      .thenThrows({
        kind: 'validation',
        errors: [
          { pointer: '/items/0/id', detail: itemDetail },
          { pointer: '/items/1/priceId', detail: priceDetail },
          { pointer: '/items/2/priceId', detail: priceDetail },
        ],
      });
    spec
      .given([created({ term: { start: '2026-01-01', end: null }, items: [item('a', MONTHLY_ADVANCE), usage] }), billedJanuary])
      .when(decide(change([{ id: 'u', delete: true }])))
      .thenThrows({ kind: 'validation', errors: [{ pointer: '/items/0/id', detail: itemDetail }] });
  });

  it('422: deleting the last recurring item', () => {
    spec
      .given([created({ term: { start: '2026-01-01', end: null } }), billedJanuary])
      .when(decide(change([{ id: 'a', delete: true }])))
      .thenThrows({ kind: 'validation', errors: [{ pointer: '/items', detail: 'at least one recurring item must remain' }] });
  });

  it('409 subscription-change-pending while a change is scheduled; 409 subscription-billing-pending while billing due before now waits', () => {
    const scheduled = decide(change([{ id: 'a', ...premium }], 'none', '2026-01-25'))(foldEvents(subscriptionEvolver, [both, billedJanuary]));
    spec
      .given([both, billedJanuary, ...scheduled])
      .when(decide(change([{ id: 'a', quantity: 2 }])))
      .thenThrows({ kind: 'conflict', code: 'subscription-change-pending' });
    spec
      .given([both])
      .when(decide(change([{ id: 'a', quantity: 2 }])))
      .thenThrows({ kind: 'conflict', code: 'subscription-billing-pending' });
  });

  it('409 subscription-billing-pending when billing has moved past the request’s time (the clock advanced while it ran): now or scheduled', () => {
    // The request read Jan 20; before it decided, the engine billed Feb 1 (a test clock's advance, another process).
    const february = runEngineTo([both, billedJanuary], '2026-02-01T00:00:00.000Z');
    for (const effective of ['now', 'period_end']) {
      spec
        .given(february)
        .when(decide(change([{ id: 'a', ...premium }], 'create_prorations', effective)))
        .thenThrows({ kind: 'conflict', code: 'subscription-billing-pending' });
    }
    // Sent again, it runs at the clock's time: February is prorated from Feb 1, nothing of January.
    const [again] = decide(change([{ id: 'a', ...premium }]), '2026-02-01T00:00:00.000Z')(foldEvents(subscriptionEvolver, february));
    expect(again.type === 'SubscriptionItemsChanged' && again.data.prorations.map((line) => [line.kind, line.period, line.amount])).toEqual([
      ['credit', { start: '2026-02-01', end: '2026-02-28' }, 3100],
      ['charge', { start: '2026-02-01', end: '2026-02-28' }, 6200],
    ]);
  });

  it('409 subscription-paused while paused; and a pause is refused (409 subscription-change-pending) while a change is scheduled', () => {
    const paused: SubscriptionPaused = {
      type: 'SubscriptionPaused',
      schemaVersion: 1,
      data: { subscriptionId: SUBSCRIPTION_ID, start: '2026-01-11', resumeAt: null, prorations: [], pausedAt: '2026-01-10T10:00:00.000Z' },
    };
    spec
      .given([both, billedJanuary, paused])
      .when(decide(change([{ id: 'a', quantity: 2 }])))
      .thenThrows({ kind: 'conflict', code: 'subscription-paused' });
    const scheduled = decide(change([{ id: 'a', ...premium }], 'none', '2026-01-25'))(foldEvents(subscriptionEvolver, [both, billedJanuary]));
    spec
      .given([both, billedJanuary, ...scheduled])
      .when((state) => decidePauseSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt(JAN20)))
      .thenThrows({ kind: 'conflict', code: 'subscription-change-pending' });
  });

  it('409 subscription-ended once its end has passed; 404 for no subscription', () => {
    const cancelled = {
      type: 'SubscriptionCancelled' as const,
      schemaVersion: 1,
      data: { subscriptionId: SUBSCRIPTION_ID, cancelAt: '2026-01-10', cancelledAt: JAN1 },
    };
    spec
      .given([both, billedJanuary, cancelled])
      .when(decide(change([{ id: 'a', quantity: 2 }])))
      .thenThrows({ kind: 'conflict', code: 'subscription-ended' });
    spec
      .given([])
      .when(decide(change([{ id: 'a', quantity: 2 }])))
      .thenThrows({ kind: 'not_found' });
  });
});

describe('decideApplyScheduledChange', () => {
  const history = (): SubscriptionEvent[] => [
    both,
    billedJanuary,
    ...decide(change([{ id: 'a', ...premium }], 'create_prorations', 'period_end'))(foldEvents(subscriptionEvolver, [both, billedJanuary])),
  ];
  const apply = (now: string) => (state: SubscriptionState) =>
    decideApplyScheduledChange({ subscriptionId: SUBSCRIPTION_ID, changeId: 'change-1' }, state, metadataAt(now), PRICES);

  it('before its instant: nothing', () => {
    spec.given(history()).when(apply('2026-01-31T23:59:59.000Z')).then([]);
  });

  it('at its instant, before the billing due then: January’s arrears at the old price, no zero-length proration of the advance item; Feb 1 then bills Premium', () => {
    const events = apply('2026-02-01T00:00:00.000Z')(foldEvents(subscriptionEvolver, history()));
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ items: [premiumA, item('b', MONTHLY_ARREARS)], prorations: [], changedAt: '2026-02-01T00:00:00.000Z' });
    const changed = foldEvents(subscriptionEvolver, [...history(), ...events]) as Subscription;
    expect(changed.pendingChanges).toEqual([]);
    expect(nextDue(changed)).toMatchObject({ billAt: new Date('2026-02-01T00:00:00.000Z'), prorations: [] });
  });
});

describe('decideDropChange', () => {
  const scheduled = decide(change([{ id: 'a', ...premium }], 'none', '2026-01-25'))(foldEvents(subscriptionEvolver, [both, billedJanuary]));
  const drop = (changeId: string) => (state: SubscriptionState) => decideDropChange({ subscriptionId: SUBSCRIPTION_ID, changeId }, state, metadataAt(JAN20));

  it('drops a pending change', () => {
    spec
      .given([both, billedJanuary, ...scheduled])
      .when(drop('change-1'))
      .then([{ type: 'SubscriptionChangeDropped', schemaVersion: 1, data: { subscriptionId: SUBSCRIPTION_ID, changeId: 'change-1', droppedAt: JAN20 } }]);
  });

  it('the engine drops a change it cannot price at its instant, with the reason', () => {
    spec
      .given([both, billedJanuary, ...scheduled])
      .when((state) =>
        decideDropChange({ subscriptionId: SUBSCRIPTION_ID, changeId: 'change-1', reason: 'no pricing' }, state, metadataAt('2026-01-25T00:00:00.000Z')),
      )
      .then([
        {
          type: 'SubscriptionChangeDropped',
          schemaVersion: 1,
          data: { subscriptionId: SUBSCRIPTION_ID, changeId: 'change-1', droppedAt: '2026-01-25T00:00:00.000Z', reason: 'no pricing' },
        },
      ]);
  });

  it('404 for a change that is not pending', () => {
    spec.given([both, billedJanuary]).when(drop('change-1')).thenThrows({ kind: 'not_found' });
  });
});

describe('decideBillProrations (always_invoice)', () => {
  const upgraded = (customerId?: string) => {
    const creation = customerId ? { ...both, data: { ...both.data, customerId } } : both;
    const state = foldEvents(subscriptionEvolver, [creation, billedJanuary]);
    return foldEvents(subscriptionEvolver, decide(change([{ id: 'a', ...premium }]))(state), state);
  };
  const downgraded = (customerId?: string) => {
    const creation = customerId ? { ...both, data: { ...both.data, customerId } } : both;
    const premiumFirst = { ...creation, data: { ...creation.data, items: [premiumA, item('b', MONTHLY_ARREARS)] } };
    const state = foldEvents(subscriptionEvolver, [
      premiumFirst,
      { ...billedJanuary, data: { ...billedJanuary.data, lines: [{ ...billedJanuary.data.lines[0], fullAmount: 6200, amount: 6200 }] } },
    ]);
    const toPro = { priceId: 'price-a', price: priceFacts({ id: 'price-a', name: 'Price a' }) };
    return foldEvents(subscriptionEvolver, decide(change([{ id: 'a', ...toPro }]))(state), state);
  };
  const bill = (state: SubscriptionState) => decideBillProrations({ subscriptionId: SUBSCRIPTION_ID, invoiceId: 'inv-now' }, state, metadataAt(JAN20));

  it('a net charge: every waiting line on an invoice billed now, none waiting after it', () => {
    const state = upgraded();
    const events = bill(state);
    expect(events).toEqual([
      {
        type: 'SubscriptionBilled',
        schemaVersion: 1,
        data: {
          subscriptionId: SUBSCRIPTION_ID,
          invoiceId: 'inv-now',
          billAt: JAN20,
          lines: [],
          billedAt: JAN20,
          prorations: (state as Subscription).pendingProrations,
        },
      },
    ]);
    expect((foldEvents(subscriptionEvolver, events, state) as Subscription).pendingProrations).toEqual([]);
  });

  it('a net credit: billed now for a customer record (its balance takes it), left waiting for the next invoice without one', () => {
    expect(bill(downgraded())).toEqual([]);
    expect(bill(downgraded('cust-record'))).toHaveLength(1);
  });
});
