import { paymentTokenHint } from '@billing/shared-kernel';
import { endsAt, ItemsChange, PaymentMethod, Subscription, SubscriptionState, timelineAt } from './domain';

export interface SubscriptionItemView {
  readonly id: string;
  /** The next instant the item is billed; null when never again. */
  readonly billAt: string | null;
  /** The period holding now (the first if not started); null for a one-time item. */
  readonly period: { readonly start: string; readonly end: string } | null;
  readonly quantity: number;
  readonly product: { readonly id: string; readonly name: string };
  readonly price: { readonly id: string; readonly name: string };
  readonly taxCode: string | null;
}

/** The Subscription resource of the README (INTERFACE.md's fields and the documented additions). */
export interface SubscriptionView {
  readonly id: string;
  readonly handle: string;
  readonly status: 'trialing' | 'active' | 'paused' | 'cancelled' | 'ended';
  readonly customer: unknown;
  readonly currency: string;
  readonly timeZone: string;
  readonly term: { readonly start: string; readonly end: string | null };
  readonly autoRenewal: boolean;
  /** The free trial: its first day and the day it ends (exclusive, the first day billed); null: none. */
  readonly trial: { readonly start: string; readonly end: string; readonly endedAt: string | null } | null;
  readonly cancelAt: string | null;
  /** When the pause in force began (the request's instant); null: not paused. */
  readonly pausedAt: string | null;
  /** The day the pause in force ends by itself (the first day served again); null: not paused, or only by hand. */
  readonly resumeAt: string | null;
  readonly endedAt: string | null;
  readonly items: SubscriptionItemView[];
  /** Charged automatically for each booked invoice; null: paid otherwise. */
  readonly paymentMethod: PublicPaymentMethod | null;
  /**
   * The last failed attempt to bill the next charges (retried from retryAt);
   * with `itemId` an item's charge that waits alone while the others bill (the
   * earliest such); null when none is pending.
   */
  readonly billingFailure: {
    readonly billAt: string;
    readonly reason: string;
    readonly attempts: number;
    readonly retryAt: string;
    readonly itemId: string | null;
  } | null;
  /** Coupons redeemed on it, in the order they apply. */
  readonly discounts: SubscriptionDiscountView[];
  /** Changes of items scheduled for later, in the order they apply. */
  readonly pendingChanges: ChangeView[];
  /** The last change of items applied; null: never changed. */
  readonly latestChange: ChangeView | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A discount as the subscription shows it: the coupon's terms in its currency and the window of invoices it discounts. */
export interface SubscriptionDiscountView {
  readonly id: string;
  readonly couponId: string;
  readonly promotionCodeId: string | null;
  readonly name: string;
  readonly percentOff: number | null;
  readonly amountOff: number | null;
  readonly duration: string;
  readonly durationInMonths: number | null;
  readonly appliesTo: { readonly productIds: readonly string[] } | null;
  readonly start: string;
  readonly end: string | null;
  readonly endedAt: string | null;
}

/** One item of a change: added, updated (as it becomes) or deleted. */
export interface ItemChangeView {
  readonly action: 'add' | 'update' | 'delete';
  readonly itemId: string;
  /** add and update: the item's price, product and quantity from the change on; delete: null. */
  readonly price: { readonly id: string; readonly name: string } | null;
  readonly product: { readonly id: string; readonly name: string } | null;
  readonly quantity: number | null;
}

/** A change of items (POST /subscriptions/{id}/changes): scheduled (pendingChanges) or applied (latestChange). */
export interface ChangeView {
  readonly id: string;
  /** The first day the change is in force (the subscription's time zone). */
  readonly date: string;
  readonly effectiveAt: string;
  readonly prorationBehavior: string;
  readonly items: ItemChangeView[];
  readonly requestedAt: string;
}

export function toChangeView(change: ItemsChange): ChangeView {
  return {
    id: change.id,
    date: change.date,
    effectiveAt: change.effectiveAt,
    prorationBehavior: change.prorationBehavior,
    items: change.changes.map((itemChange) =>
      itemChange.action === 'delete'
        ? { action: 'delete', itemId: itemChange.itemId, price: null, product: null, quantity: null }
        : {
            action: itemChange.action,
            itemId: itemChange.item.id,
            price: { id: itemChange.item.priceId, name: itemChange.item.priceName },
            product: itemChange.item.product,
            quantity: Number(itemChange.item.quantity),
          },
    ),
    requestedAt: change.requestedAt,
  };
}

/** A payment method as anything outside the service sees it: the token only as its hint. */
export interface PublicPaymentMethod {
  readonly provider: string;
  readonly tokenHint: string;
}

/** The one redaction of a subscription's payment method: responses, notifications and the events log all show this. */
export function publicPaymentMethod(method: PaymentMethod | null | undefined): PublicPaymentMethod | null {
  return method ? { provider: method.provider, tokenHint: paymentTokenHint(method.token) } : null;
}

/** The subscription as of `now` (the environment's clock): item periods and billAt, and `ended` once its end has passed. */
export function toSubscriptionView(subscription: Subscription, now: Date): SubscriptionView {
  const timeline = timelineAt(subscription, now);
  const ended = timeline.status === 'ended';
  return {
    id: subscription.id,
    handle: subscription.handle,
    status: timeline.status,
    customer: subscription.customer,
    currency: subscription.currency.toUpperCase(),
    timeZone: subscription.timeZone,
    term: timeline.term,
    autoRenewal: subscription.autoRenewal,
    trial: subscription.trial ? { start: subscription.trial.start, end: subscription.trial.end, endedAt: subscription.trial.endedAt } : null,
    cancelAt: subscription.cancelAt,
    // A pause whose resumeAt has come is over, even before the engine records it (as the status shows).
    ...(timeline.status === 'paused' ? { pausedAt: subscription.pause!.pausedAt, resumeAt: subscription.pause!.resumeAt } : { pausedAt: null, resumeAt: null }),
    endedAt: subscription.endedAt ?? (ended ? (endsAt(subscription)?.toISOString() ?? null) : null),
    items: subscription.items.map((item) => {
      const at = timeline.items.find((entry) => entry.itemId === item.id);
      return {
        id: item.id,
        billAt: at?.billAt?.toISOString() ?? null,
        period: at?.period ?? null,
        quantity: Number(item.quantity),
        product: item.product,
        price: { id: item.priceId, name: item.priceName },
        taxCode: item.taxCode,
      };
    }),
    paymentMethod: publicPaymentMethod(subscription.paymentMethod),
    billingFailure: billingFailureOf(subscription),
    discounts: (subscription.discounts ?? []).map((discount) => ({
      id: discount.id,
      couponId: discount.couponId,
      promotionCodeId: discount.promotionCodeId,
      name: discount.name,
      percentOff: discount.percentOff,
      amountOff: discount.amountOff,
      duration: discount.duration,
      durationInMonths: discount.durationInMonths,
      appliesTo: discount.productIds === null ? null : { productIds: discount.productIds },
      start: discount.start,
      end: discount.end,
      endedAt: discount.endedAt,
    })),
    pendingChanges: (subscription.pendingChanges ?? []).map(toChangeView),
    latestChange: subscription.latestChange ? toChangeView(subscription.latestChange) : null,
    createdAt: subscription.createdAt,
    updatedAt: subscription.updatedAt,
  };
}

function billingFailureOf(subscription: Subscription): SubscriptionView['billingFailure'] {
  if (subscription.billingFailure !== null) return { ...subscription.billingFailure, itemId: null };
  const [earliest] = Object.entries(subscription.itemFailures ?? {}).sort(([, a], [, b]) => (a.billAt < b.billAt ? -1 : a.billAt > b.billAt ? 1 : 0));
  return earliest === undefined ? null : { ...earliest[1], itemId: earliest[0] };
}

/** For notifications: the subscription as of its latest event. */
export function subscriptionViewOf(state: SubscriptionState): SubscriptionView | null {
  return state.status === 'none' ? null : toSubscriptionView(state, new Date(state.updatedAt));
}
