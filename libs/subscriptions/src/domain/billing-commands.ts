import { UsageCharge, UsageCorrection, UsageLineRange } from './subscription-events';

/** The billing commands of the Subscription aggregate (decided in billing-decisions.ts), sent by the billing engine and the usage and cancel handlers. */

export interface BillDue {
  readonly subscriptionId: string;
  /** The due instant being billed: nextDue(state).billAt. */
  readonly billAt: Date;
  /** The invoice the caller creates for these charges. */
  readonly invoiceId: string;
  /** Per charged item id: the price for a FULL period at the item's quantity (catalog pricing), in minor units; an event_based item: its period's rated usage. */
  readonly amounts: Readonly<Record<string, bigint>>;
  /** The rated usage of the event_based charges (one per such charge). */
  readonly usage?: readonly UsageCharge[];
  /** Late usage of periods already booked, billed now. */
  readonly corrections?: readonly UsageCorrection[];
  /** Keep the invoice a draft until this instant (the usage grace period); absent or null: booked now. */
  readonly bookAt?: Date | null;
  readonly usageLines?: UsageLineRange;
  /** The item whose failed charge this retries alone (retryDue); absent: the next due charges (nextDue). */
  readonly retryOf?: string;
}

export interface BookUsageInvoice {
  readonly subscriptionId: string;
  readonly invoiceId: string;
  /** The usage of the draft's event_based charges, re-rated at the end of the grace period. */
  readonly usage: readonly UsageCharge[];
}

export interface AdvanceSubscription {
  readonly subscriptionId: string;
}

export interface CancelUsageEvent {
  readonly subscriptionId: string;
  /** The usage event as it was recorded (usage_events). */
  readonly eventId: string;
  readonly metricCode: string;
  readonly occurredAt: Date;
}

export interface RecordBillingFailure {
  readonly subscriptionId: string;
  readonly billAt: Date;
  readonly reason: string;
  /** The item whose charge could not be priced or rated: only it waits for the retry. Absent: the billing as a whole. */
  readonly itemId?: string;
}

export interface CancelNow {
  readonly subscriptionId: string;
  /** Credit the unused advance-billed days pro rata on the final invoice. */
  readonly prorate: boolean;
}

export interface BillFinal extends CancelNow {
  /** The invoice the caller creates for the final billing. */
  readonly invoiceId: string;
  /** Per charged item: the full-period amount (an event_based item: its rated usage), as decideBillDue takes it. */
  readonly amounts: Readonly<Record<string, bigint>>;
  readonly usage?: readonly UsageCharge[];
  readonly corrections?: readonly UsageCorrection[];
  readonly usageLines?: UsageLineRange;
}
