import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { advanceCredit, decideAdvanceSubscription, decideBillDue, proratedItem } from './billing-decisions';
import { nextDue, retryDue, upcomingBilling } from './billing';
import { composeInvoice } from './invoice-composition';
import { chargeOf, PRICING, priceOf } from './invoice-composition.arbitraries';
import { ProrationLine, SubscriptionBilled, SubscriptionCancelled, SubscriptionEvent } from './subscription-events';
import { Subscription, SubscriptionState, subscriptionEvolver, withPendingProrations } from './subscription';
import { MONTHLY_ADVANCE, SUBSCRIPTION_ID, created, item } from './subscription.arbitraries';

/** Proration lines wait in pendingProrations for the next invoice the engine books, which bills them all after its charges. */

const JAN1 = '2026-01-01T00:00:00.000Z';
const FEB1 = '2026-02-01T00:00:00.000Z';
const creation = created({ term: { start: '2026-01-01', end: null } });
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
const january = foldEvents(subscriptionEvolver, [creation, billedJanuary]) as Subscription;
/** The advance-billed remainder of January from the 20th: 3100 × 12 ÷ 31 = 1200. */
const credit = advanceCredit(january, january.items[0], '2026-01-20', 'change')!;
const charge: ProrationLine = { ...credit, kind: 'charge', fullAmount: 6200, amount: 2400 };
const waiting = withPendingProrations(january, [credit, charge]);
const spec = deciderSpec(subscriptionEvolver);

describe('advanceCredit', () => {
  it('credits the advance-billed days from the given day to the end of the billed piece (3100 × 12 ÷ 31 = 1200)', () => {
    expect(credit).toEqual<ProrationLine>({
      itemId: 'a',
      kind: 'credit',
      reason: 'change',
      item: proratedItem(item('a', MONTHLY_ADVANCE)),
      period: { start: '2026-01-20', end: '2026-01-31' },
      days: 12,
      daysInFullPeriod: 31,
      fullAmount: 3100,
      amount: 1200,
    });
  });

  it('from the first day of the piece: all of it; after its last day or before anything was billed: nothing', () => {
    expect(advanceCredit(january, january.items[0], '2025-12-15', 'pause')).toMatchObject({ period: { start: '2026-01-01' }, days: 31, amount: 3100 });
    expect(advanceCredit(january, january.items[0], '2026-02-01', 'pause')).toBeNull();
    const unbilled = foldEvents(subscriptionEvolver, [creation]) as Subscription;
    expect(advanceCredit(unbilled, unbilled.items[0], '2026-01-20', 'pause')).toBeNull();
  });
});

describe('pending prorations', () => {
  it('nextDue brings every pending line with the next charges; a retry of one item brings none', () => {
    expect(nextDue(waiting)).toMatchObject({ billAt: new Date(FEB1), prorations: [credit, charge] });
    expect(nextDue(january)?.prorations).toEqual([]);
    const failed = { ...waiting, itemFailures: { a: { billAt: FEB1, reason: 'no pricing', attempts: 1, retryAt: FEB1 } } };
    expect(retryDue(failed, new Date(FEB1))?.prorations).toEqual([]);
  });

  it('given lines waiting, when the next charges are billed, then SubscriptionBilled records them after the charges and none wait any more', () => {
    const events = decideBillDue(
      { subscriptionId: SUBSCRIPTION_ID, billAt: new Date(FEB1), invoiceId: 'inv-feb', amounts: { a: 3100n } },
      waiting,
      metadataAt(FEB1),
    );
    expect(events).toEqual([expect.objectContaining({ type: 'SubscriptionBilled', data: expect.objectContaining({ prorations: [credit, charge] }) })]);
    const after = foldEvents(subscriptionEvolver, events, waiting as SubscriptionState) as Subscription;
    expect(after.pendingProrations).toEqual([]);
    expect(nextDue(after)?.prorations).toEqual([]);
  });

  it('an invoice without lines waiting records no prorations member', () => {
    spec
      .given([creation, billedJanuary])
      .when((state) =>
        decideBillDue({ subscriptionId: SUBSCRIPTION_ID, billAt: new Date(FEB1), invoiceId: 'inv-feb', amounts: { a: 3100n } }, state, metadataAt(FEB1)),
      )
      .then([
        {
          type: 'SubscriptionBilled',
          schemaVersion: 1,
          data: {
            subscriptionId: SUBSCRIPTION_ID,
            invoiceId: 'inv-feb',
            billAt: FEB1,
            lines: [
              {
                itemId: 'a',
                kind: 'advance',
                period: { start: '2026-02-01', end: '2026-02-28' },
                daysUsed: 28,
                daysInFullPeriod: 28,
                fullAmount: 3100,
                amount: 3100,
              },
            ],
            billedAt: FEB1,
          },
        },
      ]);
  });

  it('lines waiting when the subscription ends without a charge are billed on an invoice of their own at the end, which then ends it', () => {
    const cancelled: SubscriptionCancelled = {
      type: 'SubscriptionCancelled',
      schemaVersion: 1,
      data: { subscriptionId: SUBSCRIPTION_ID, cancelAt: '2026-01-31', cancelledAt: '2026-01-20T10:00:00.000Z' },
    };
    const ending = withPendingProrations(foldEvents(subscriptionEvolver, [creation, billedJanuary, cancelled]) as Subscription, [credit]);
    expect(nextDue(ending)).toMatchObject({ billAt: new Date(FEB1), charges: [], ends: true, prorations: [credit] });
    expect(upcomingBilling(ending)?.due.prorations).toEqual([credit]);
    // The engine bills it (decideAdvanceSubscription leaves an instant with an invoice to decideBillDue).
    expect(decideAdvanceSubscription({ subscriptionId: SUBSCRIPTION_ID }, ending, metadataAt(FEB1))).toEqual([]);
    const events: SubscriptionEvent[] = decideBillDue(
      { subscriptionId: SUBSCRIPTION_ID, billAt: new Date(FEB1), invoiceId: 'inv-end', amounts: {} },
      ending,
      metadataAt(FEB1),
    );
    expect(events.map((event) => event.type)).toEqual(['SubscriptionBilled', 'SubscriptionEnded']);
    expect(events[0].data).toMatchObject({ lines: [], prorations: [credit] });
  });
});

describe('composeInvoice with proration lines', () => {
  it('bills them after the charge lines, one line each: a credit negative, a charge positive, the item named by the line', () => {
    const composed = composeInvoice(
      {
        subscription: waiting,
        due: {
          billAt: new Date(FEB1),
          charges: [chargeOf('a', 'advance', FEB1, { start: '2026-02-01', end: '2026-02-28' }, 28, 28)],
          prorations: [credit, charge],
        },
        prices: new Map([['price-a', priceOf('Pro monthly', 'fee', { unitAmount: 3100 })]]),
        usage: new Map(),
        rerated: [],
      },
      PRICING,
    );
    if (composed.kind !== 'composed') throw composed.error;
    expect(
      composed.invoice.lines.map(({ title, description, periodStart, periodEnd, quantity, unitAmount }) => ({
        title,
        description,
        periodStart,
        periodEnd,
        quantity,
        unitAmount,
      })),
    ).toEqual([
      expect.objectContaining({ periodStart: '2026-02-01', periodEnd: '2026-02-28', unitAmount: 3100 }),
      {
        title: 'Unused time: Price a',
        description: 'Pro: 12 of 31 days unused after the change',
        periodStart: '2026-01-20',
        periodEnd: '2026-01-31',
        quantity: 1,
        unitAmount: -1200,
      },
      {
        title: 'Remaining time: Price a',
        description: 'Pro: 12 of 31 days after the change',
        periodStart: '2026-01-20',
        periodEnd: '2026-01-31',
        quantity: 1,
        unitAmount: 2400,
      },
    ]);
  });
});
