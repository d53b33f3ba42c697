import { SubscriptionDiscount } from './discounts';
import { TermUnit } from './periods';
import { PaymentMethod, SubscriptionCustomer } from './subscription-events';

/** The commands of the Subscription aggregate (decided in subscription-decisions), and what their callers look up for them. */

/** What the catalog knows about a price, looked up by the caller. */
export interface PriceFacts {
  readonly id: string;
  readonly name: string;
  readonly archived: boolean;
  /** The lowercase currencies the price has pricing in. */
  readonly currencies: readonly string[];
  readonly purchase: 'one_time' | 'recurring';
  readonly termCount: number | null;
  readonly termUnit: TermUnit | null;
  readonly billingTiming: 'advance' | 'arrears' | 'event_based';
  readonly product: { readonly id: string; readonly name: string } | null;
  /** event_based: the metric's code, and whether the environment has that billable metric (looked up by the caller). */
  readonly metricCode?: string | null;
  readonly metricExists?: boolean;
}

export interface RequestedItem {
  readonly priceId: string;
  /** null: no such price in the environment. */
  readonly price: PriceFacts | null;
  readonly quantity: number | string;
  readonly taxCode?: string | null;
}

export interface CreateSubscription {
  readonly subscriptionId: string;
  readonly handle: string;
  readonly customer: SubscriptionCustomer;
  /** The customer record `customer` is the snapshot of; its invoices are made out to the record. */
  readonly customerId?: string | null;
  readonly currency: string;
  readonly term: { readonly start: string; readonly end?: string | null };
  /** Default false; only an ending term can renew. */
  readonly autoRenewal?: boolean;
  /** Default UTC. */
  readonly timeZone?: string | null;
  readonly items: readonly RequestedItem[];
  /** Charge the invoices automatically with it; absent or null: they are paid otherwise. */
  readonly paymentMethod?: PaymentMethod | null;
  /** A free trial to this day (exclusive); not together with trialDays. */
  readonly trialEnd?: string | null;
  /** A free trial of this many days from term.start (1–730); not together with trialEnd. */
  readonly trialDays?: number | null;
}

export interface CancelSubscription {
  readonly subscriptionId: string;
  /** 'now': service ends today (cancelAt today); default 'period_end'. */
  readonly at?: 'period_end' | 'now';
}

export interface EndTrial {
  readonly subscriptionId: string;
}

export interface ReactivateSubscription {
  readonly subscriptionId: string;
}

/** A redeemed coupon as the subscription records it; its window (start, end) is the decider's. */
export type RedeemedDiscountTerms = Omit<SubscriptionDiscount, 'start' | 'end' | 'endedAt'>;
