import { foldEvents } from '@billing/shared-kernel';
import { metadataAt } from '@billing/testing/decider-spec';
import { billsInvoice, nextDue } from './billing';
import { decideAdvanceSubscription, decideAdvanceTrial, decideBillDue } from './billing-decisions';
import { decideAdvancePause } from './pause';
import { termLengthOf } from './periods';
import { ItemSchedule, SubscriptionCreated, SubscriptionEvent, SubscriptionItem, Term } from './subscription-events';
import { PriceFacts } from './subscription-commands';
import { subscriptionEvolver } from './subscription';

/** Fixtures shared by the subscription and billing tests. */

export const SUBSCRIPTION_ID = 'sub-1';
export const PRODUCT = { id: 'prod-1', name: 'Pro' };

export function priceFacts(overrides: Partial<PriceFacts> = {}): PriceFacts {
  return {
    id: 'price-monthly',
    name: 'Pro monthly',
    archived: false,
    currencies: ['eur', 'usd'],
    purchase: 'recurring',
    termCount: 1,
    termUnit: 'month',
    billingTiming: 'advance',
    product: PRODUCT,
    ...overrides,
  };
}

export const MONTHLY_ADVANCE: ItemSchedule = { purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'advance' };
export const MONTHLY_ARREARS: ItemSchedule = { purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'arrears' };
export const WEEKLY_ADVANCE: ItemSchedule = { purchase: 'recurring', termCount: 1, termUnit: 'week', billingTiming: 'advance' };
export const ONE_TIME: ItemSchedule = { purchase: 'one_time' };

export function item(id: string, schedule: ItemSchedule): SubscriptionItem {
  return { id, priceId: `price-${id}`, priceName: `Price ${id}`, product: PRODUCT, quantity: '1', taxCode: null, schedule };
}

export interface CreatedOptions {
  readonly term?: Term;
  readonly autoRenewal?: boolean;
  readonly timeZone?: string;
  readonly items?: readonly SubscriptionItem[];
  /** A trial to this day (exclusive); absent: none. */
  readonly trialEnd?: string;
}

/** A SubscriptionCreated as decideCreateSubscription writes it. */
export function created({
  term = { start: '2026-01-31', end: null },
  autoRenewal = false,
  timeZone = 'UTC',
  items = [item('a', MONTHLY_ADVANCE)],
  trialEnd,
}: CreatedOptions = {}): SubscriptionCreated {
  return {
    type: 'SubscriptionCreated',
    schemaVersion: 1,
    data: {
      subscriptionId: SUBSCRIPTION_ID,
      handle: 'sub-0001',
      customer: { id: 'cust-1' },
      currency: 'eur',
      timeZone,
      term,
      termLength: term.end === null ? null : termLengthOf(term.start, term.end),
      autoRenewal,
      items,
      createdAt: '2026-01-01T09:00:00.000Z',
      ...(trialEnd === undefined ? {} : { trialEnd }),
    },
  };
}

/**
 * The billing engine's turn, without a database: its clock-driven steps (trial, pause) and each billing due
 * by `now` (every charge priced at `amount` for a full period), in the engine's order; the events appended.
 */
export function runEngineTo(history: readonly SubscriptionEvent[], now: string, amount = 3100n): SubscriptionEvent[] {
  const events = [...history];
  const meta = metadataAt(now, 'inv');
  let state = foldEvents(subscriptionEvolver, events);
  const append = (decided: readonly SubscriptionEvent[]) => {
    events.push(...decided);
    state = foldEvents(subscriptionEvolver, decided, state);
  };
  for (;;) {
    const stepped = [
      ...decideAdvanceTrial({ subscriptionId: SUBSCRIPTION_ID }, state, meta),
      ...decideAdvancePause({ subscriptionId: SUBSCRIPTION_ID }, state, meta),
    ];
    const due = stepped.length > 0 ? null : nextDue(state);
    if (stepped.length === 0 && (due === null || due.billAt > meta.now)) return events;
    if (stepped.length > 0) append(stepped);
    else if (!billsInvoice(due!)) append(decideAdvanceSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, meta));
    else {
      const amounts = Object.fromEntries(due!.charges.map((charge) => [charge.itemId, amount]));
      append(decideBillDue({ subscriptionId: SUBSCRIPTION_ID, billAt: due!.billAt, invoiceId: meta.newId(), amounts }, state, meta));
    }
  }
}
