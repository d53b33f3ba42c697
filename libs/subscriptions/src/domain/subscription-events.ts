import { DomainEvent } from '@billing/shared-kernel';
import { SubscriptionDiscount } from './discounts';
import { Period, TermLength, TermUnit } from './periods';
import { ProrationBehavior } from './proration-behavior';

/**
 * The events of a subscription stream (stable `type` strings, schemaVersion 1).
 * Data is plain JSON: dates are `YYYY-MM-DD` (local dates in the
 * subscription's time zone), instants ISO 8601 UTC strings, amounts integer
 * minor units as numbers within ±(2^53 − 1), quantities decimal strings.
 */

/** Passed through from the request, never interpreted by the domain. */
export type SubscriptionCustomer = { readonly [member: string]: unknown };

/** What the item's price said about billing when the subscription was created; later price edits do not change it. */
export type ItemSchedule =
  | { readonly purchase: 'one_time' }
  | {
      readonly purchase: 'recurring';
      readonly termCount: number;
      readonly termUnit: TermUnit;
      readonly billingTiming: 'advance' | 'arrears' | 'event_based';
      /** event_based only: the billable metric whose usage of each period the item bills (in arrears). */
      readonly metricCode?: string;
    };

export interface SubscriptionItem {
  readonly id: string;
  readonly priceId: string;
  readonly priceName: string;
  readonly product: { readonly id: string; readonly name: string };
  /** Canonical decimal string ("2", "1.5", "0.0001"): > 0, at most 4 decimals (exact as a bigint scaled by 10^4). */
  readonly quantity: string;
  readonly taxCode: string | null;
  readonly schedule: ItemSchedule;
}

/** `end` null: evergreen. */
export interface Term {
  readonly start: string;
  readonly end: string | null;
}

export interface SubscriptionCreatedData {
  readonly subscriptionId: string;
  readonly handle: string;
  readonly customer: SubscriptionCustomer;
  /** lowercase ISO 4217, like the catalog's pricing keys */
  readonly currency: string;
  /** canonical IANA name */
  readonly timeZone: string;
  readonly term: Term;
  /** What a renewal repeats; null for an evergreen term. */
  readonly termLength: TermLength | null;
  readonly autoRenewal: boolean;
  readonly items: readonly SubscriptionItem[];
  /** Charged automatically for every invoice the billing engine books (the payments context collects them); absent in older events. */
  readonly paymentMethod?: PaymentMethod | null;
  readonly createdAt: string;
  /** The customer record (invoicing's customers) the subscription bills, `customer` being its snapshot; absent or null: an inline customer. */
  readonly customerId?: string | null;
  /**
   * The day a free trial from term.start ends (exclusive: the first day billed, which becomes the billing anchor);
   * absent or null: no trial.
   */
  readonly trialEnd?: string | null;
}

/** The trial ends within 3 days (subscription.trial_will_end): recorded once by the billing engine on the environment's clock. */
export interface SubscriptionTrialEndAnnouncedData {
  readonly subscriptionId: string;
  /** The day the trial ends (the first day billed). */
  readonly trialEnd: string;
  readonly announcedAt: string;
}

/** The trial is over: at its end (recorded by the billing engine), or ended early (PUT …/end-trial). */
export interface SubscriptionTrialEndedData {
  readonly subscriptionId: string;
  /** The first day billed: the billing anchor from now on (the trial's end, or the day it was ended early). */
  readonly anchor: string;
  readonly early: boolean;
  readonly endedAt: string;
}

/** A payment provider's name and its payment method token (never provider credentials). */
export interface PaymentMethod {
  readonly provider: string;
  readonly token: string;
}

export interface SubscriptionCancelledData {
  readonly subscriptionId: string;
  /** The last day of service (inclusive). */
  readonly cancelAt: string;
  readonly cancelledAt: string;
  /** 'now': cancelled with service ending today (PUT …/cancel {at: now}); absent: at the end of the period. */
  readonly at?: 'now';
}

export interface SubscriptionReactivatedData {
  readonly subscriptionId: string;
  readonly reactivatedAt: string;
}

/**
 * PUT /subscriptions/{id}/pause: service stops after the pause day (the request's local date, still served);
 * nothing is billed from `start` until it resumes.
 */
export interface SubscriptionPausedData {
  readonly subscriptionId: string;
  /** The first day not served: the day after the pause day. */
  readonly start: string;
  /** The day it resumes by itself (the first day served again, at its local midnight); null: only when resumed by hand. */
  readonly resumeAt: string | null;
  /** Per advance item, the days after the pause day of the piece billed in advance: credits (reason pause) waiting for the next invoice. */
  readonly prorations: readonly ProrationLine[];
  readonly pausedAt: string;
}

/** The pause is over (PUT …/resume, or the billing engine at resumeAt): billing goes on from `resumeDay`, the anchor kept. */
export interface SubscriptionResumedData {
  readonly subscriptionId: string;
  /** The first day served again: its current period is charged pro rata from it. */
  readonly resumeDay: string;
  /** true: by the billing engine at resumeAt; false: PUT …/resume. */
  readonly automatic: boolean;
  readonly resumedAt: string;
}

export interface SubscriptionRenewedData {
  readonly subscriptionId: string;
  /** The new term: it starts the day after the previous one ended. */
  readonly term: { readonly start: string; readonly end: string };
  /** The instant the new term began (its first day's start in the subscription's zone). */
  readonly renewedAt: string;
}

export type ChargeKind = 'advance' | 'arrears' | 'one_time' | 'event_based';

export interface BilledLine {
  readonly itemId: string;
  readonly kind: ChargeKind;
  /** The days charged (shortened at a term end or cancelAt); null for a one-time charge. */
  readonly period: Period | null;
  /** daysUsed = daysInFullPeriod for a full period (and 1 = 1 for a one-time charge). */
  readonly daysUsed: number;
  readonly daysInFullPeriod: number;
  /** What the caller priced for the full period at the item's quantity. */
  readonly fullAmount: number;
  /** fullAmount × daysUsed ÷ daysInFullPeriod, rounded half away from zero once. */
  readonly amount: number;
}

/** What a proration line bills of an item: its price and quantity then (a deleted item is gone from the items, its lines stay). */
export interface ProratedItem {
  readonly priceId: string;
  readonly priceName: string;
  readonly product: { readonly id: string; readonly name: string };
  readonly quantity: string;
  readonly taxCode: string | null;
}

/** Why a proration line was made: its invoice line says so. */
export type ProrationReason = 'cancellation' | 'change' | 'used_before_change' | 'pause' | 'resume';

/**
 * Days of an item billed outside its regular pieces: the unused advance-billed remainder credited (a cancel
 * now, a change, a pause), or days charged at a price (the new price's remainder after a change, an arrears
 * item's days used at its old price). Waiting in `pendingProrations` for the next invoice the engine books
 * (or booked at once on one of their own); composeInvoice makes one line of each, after the others.
 */
export interface ProrationLine {
  readonly itemId: string;
  /** credit: the invoice line is the negative of `amount`; charge: `amount`. */
  readonly kind: 'credit' | 'charge';
  readonly reason: ProrationReason;
  readonly item: ProratedItem;
  /** The days prorated (inclusive), within one full period of the item. */
  readonly period: Period;
  readonly days: number;
  readonly daysInFullPeriod: number;
  /** The full-period amount at the item's price and quantity. */
  readonly fullAmount: number;
  /** fullAmount × days ÷ daysInFullPeriod, rounded half away from zero once (proRate); never negative. */
  readonly amount: number;
}

/** A cancel-now's credit as events written before ProrationLine recorded it (`credits`); nothing reads it any more. */
export interface BilledCredit {
  readonly itemId: string;
  /** The unused days: from the day after the cancellation to the end of the piece billed in advance. */
  readonly period: Period;
  readonly daysUnused: number;
  readonly daysInFullPeriod: number;
  /** The full-period amount the piece was billed from. */
  readonly fullAmount: number;
  /** fullAmount × daysUnused ÷ daysInFullPeriod, rounded half away from zero once; positive (the invoice line is its negative). */
  readonly amount: number;
}

/** The last piece an advance item was billed (what a credit of its remainder is worked out from). */
export interface AdvancePiece {
  readonly period: Period;
  readonly daysInFullPeriod: number;
  readonly fullAmount: number;
}

/** One item of a change: added (a new item), updated (its price or quantity; the item as it becomes), or deleted. */
export type ItemChange =
  | { readonly action: 'add'; readonly item: SubscriptionItem }
  | { readonly action: 'update'; readonly item: SubscriptionItem }
  | { readonly action: 'delete'; readonly itemId: string };

/** A change of items, as requested (validated) and scheduled; applied at effectiveAt. */
export interface ItemsChange {
  readonly id: string;
  /** The first day (local) the change is in force. */
  readonly date: string;
  /** The instant it applies: the request's for `now`, else the start of `date` in the subscription's zone. */
  readonly effectiveAt: string;
  readonly prorationBehavior: ProrationBehavior;
  readonly changes: readonly ItemChange[];
  readonly requestedAt: string;
}

/** A change to apply later (effective period_end or a date): GET shows it in pendingChanges until it applies or is dropped. */
export interface SubscriptionChangeScheduledData {
  readonly subscriptionId: string;
  readonly change: ItemsChange;
}

/** DELETE /subscriptions/{id}/changes/{changeId}: a pending change will not apply (or the engine could not price it at its instant: `reason`). */
export interface SubscriptionChangeDroppedData {
  readonly subscriptionId: string;
  readonly changeId: string;
  readonly droppedAt: string;
  /** Why the engine dropped it (its prices could not be priced at its instant); absent: dropped by request. */
  readonly reason?: string;
}

/** The items changed (now, or a scheduled change at its instant): the new items, what billing keeps of them, and the proration lines made. */
export interface SubscriptionItemsChangedData {
  readonly subscriptionId: string;
  readonly change: ItemsChange;
  /** The items from now on. */
  readonly items: readonly SubscriptionItem[];
  /** Per item whose billing moves: its last day billed (or billed by a proration line) from now on. */
  readonly billedThrough: Readonly<Record<string, string>>;
  /** Per item whose advance-billed piece is now at another amount (prorated to the new price). */
  readonly advanceBilled: Readonly<Record<string, AdvancePiece>>;
  /** The lines made: waiting for the next invoice (always_invoice: billed at once by the SubscriptionBilled after this event). */
  readonly prorations: readonly ProrationLine[];
  readonly changedAt: string;
}

/** The usage an event_based item billed for one period, as rated then: quantity a decimal string, amount minor units. */
export interface UsageCharge {
  readonly itemId: string;
  readonly period: Period;
  readonly quantity: string;
  readonly amount: number;
}

/** A period billed before whose usage changed after its invoice was booked (late events): the new totals and the difference billed now. */
export interface UsageCorrection extends UsageCharge {
  readonly quantityDelta: string;
  readonly amountDelta: number;
}

/** Where an invoice's usage lines are (a booking replaces exactly them), counted from 0 in its lines. */
export interface UsageLineRange {
  readonly first: number;
  readonly count: number;
}

/** Everything due at one instant: one invoice per subscription per billAt. */
export interface SubscriptionBilledData {
  readonly subscriptionId: string;
  readonly invoiceId: string;
  readonly billAt: string;
  readonly lines: readonly BilledLine[];
  readonly billedAt: string;
  /** The usage of the event_based charges as rated at billing (absent in older events and without usage). */
  readonly usage?: readonly UsageCharge[];
  /** Late usage of periods already booked, billed on this invoice as correction lines. */
  readonly corrections?: readonly UsageCorrection[];
  /** Set when the invoice stays a draft for the usage grace period: it is booked (its usage re-rated) at this instant. */
  readonly bookAt?: string | null;
  readonly usageLines?: UsageLineRange;
  /** Older events' cancel-now credits (now among `prorations`). */
  readonly credits?: readonly BilledCredit[];
  /**
   * The proration lines on this invoice, after the other lines: every line pending before it (they leave
   * `pendingProrations`) and a cancel-now's credits. Absent: none.
   */
  readonly prorations?: readonly ProrationLine[];
}

/** A draft kept open for late usage was booked at the end of the grace period, with its usage re-rated then. */
export interface SubscriptionInvoiceBookedData {
  readonly subscriptionId: string;
  readonly invoiceId: string;
  readonly billAt: string;
  readonly usage: readonly UsageCharge[];
  readonly bookedAt: string;
}

export interface SubscriptionEndedData {
  readonly subscriptionId: string;
  /** The instant service stopped: the start of the day after the last day of service. */
  readonly endedAt: string;
}

/** Billing the charges due at billAt failed (e.g. a price lost its pricing in the currency); retried from retryAt. */
export interface SubscriptionBillingFailedData {
  readonly subscriptionId: string;
  readonly billAt: string;
  readonly reason: string;
  /** Failed attempts at this billAt so far, this one included. */
  readonly attempts: number;
  readonly retryAt: string;
  readonly failedAt: string;
  /**
   * The item whose charge failed (its price or usage could not be rated): only
   * that item waits for the retry, the others go on billing. Absent: the
   * billing at billAt as a whole failed.
   */
  readonly itemId?: string;
}

/** A coupon redeemed on the subscription (its terms as of the redemption, in the subscription's currency). */
export interface SubscriptionDiscountAppliedData {
  readonly subscriptionId: string;
  readonly discount: SubscriptionDiscount;
  readonly appliedAt: string;
}

/** A discount stopped: ended early (DELETE …/discounts/{id}: `removed`) or a `once` discount used by the invoice billed (`used`). */
export interface SubscriptionDiscountEndedData {
  readonly subscriptionId: string;
  readonly discountId: string;
  readonly reason: 'removed' | 'used';
  /** The discount's last day (local date in the subscription's time zone). */
  readonly end: string;
  readonly endedAt: string;
}

export type SubscriptionChangeScheduled = DomainEvent<'SubscriptionChangeScheduled', SubscriptionChangeScheduledData>;
export type SubscriptionChangeDropped = DomainEvent<'SubscriptionChangeDropped', SubscriptionChangeDroppedData>;
export type SubscriptionItemsChanged = DomainEvent<'SubscriptionItemsChanged', SubscriptionItemsChangedData>;
export type SubscriptionCreated = DomainEvent<'SubscriptionCreated', SubscriptionCreatedData>;
export type SubscriptionDiscountApplied = DomainEvent<'SubscriptionDiscountApplied', SubscriptionDiscountAppliedData>;
export type SubscriptionDiscountEnded = DomainEvent<'SubscriptionDiscountEnded', SubscriptionDiscountEndedData>;
export type SubscriptionTrialEndAnnounced = DomainEvent<'SubscriptionTrialEndAnnounced', SubscriptionTrialEndAnnouncedData>;
export type SubscriptionTrialEnded = DomainEvent<'SubscriptionTrialEnded', SubscriptionTrialEndedData>;
export type SubscriptionCancelled = DomainEvent<'SubscriptionCancelled', SubscriptionCancelledData>;
export type SubscriptionReactivated = DomainEvent<'SubscriptionReactivated', SubscriptionReactivatedData>;
export type SubscriptionPaused = DomainEvent<'SubscriptionPaused', SubscriptionPausedData>;
export type SubscriptionResumed = DomainEvent<'SubscriptionResumed', SubscriptionResumedData>;
export type SubscriptionRenewed = DomainEvent<'SubscriptionRenewed', SubscriptionRenewedData>;
export type SubscriptionBilled = DomainEvent<'SubscriptionBilled', SubscriptionBilledData>;
export type SubscriptionEnded = DomainEvent<'SubscriptionEnded', SubscriptionEndedData>;
/** The only event of a `subscription-handle` stream: the handle belongs to this subscription (so no other can take it). */
export type SubscriptionHandleClaimed = DomainEvent<'SubscriptionHandleClaimed', { readonly handle: string; readonly subscriptionId: string }>;
export type SubscriptionBillingFailed = DomainEvent<'SubscriptionBillingFailed', SubscriptionBillingFailedData>;
export type SubscriptionInvoiceBooked = DomainEvent<'SubscriptionInvoiceBooked', SubscriptionInvoiceBookedData>;
/**
 * A usage event of the subscription no longer counts (POST /usage-events/{id}/cancel):
 * recorded while its period is open (not billed, or billed on a draft still in its
 * grace period). The row in `usage_events` stays (append-only); aggregation
 * leaves out the events cancelled (`usage_event_cancellations`, written with this event).
 */
export interface UsageEventCancelledData {
  readonly subscriptionId: string;
  readonly eventId: string;
  readonly metricCode: string;
  /** The event's own timestamp. */
  readonly timestamp: string;
  readonly cancelledAt: string;
}
export type UsageEventCancelled = DomainEvent<'UsageEventCancelled', UsageEventCancelledData>;

export type SubscriptionEvent =
  | SubscriptionChangeScheduled
  | SubscriptionChangeDropped
  | SubscriptionItemsChanged
  | SubscriptionTrialEndAnnounced
  | SubscriptionTrialEnded
  | SubscriptionDiscountApplied
  | SubscriptionDiscountEnded
  | UsageEventCancelled
  | SubscriptionInvoiceBooked
  | SubscriptionBillingFailed
  | SubscriptionCreated
  | SubscriptionCancelled
  | SubscriptionReactivated
  | SubscriptionPaused
  | SubscriptionResumed
  | SubscriptionRenewed
  | SubscriptionBilled
  | SubscriptionEnded;
