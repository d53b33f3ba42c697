import { DomainEvent } from '@billing/shared-kernel';
import { SettlementStatus } from './invoice-maths';
import { ResolvedTax } from './tax-code';

/**
 * The events of an invoice stream and the values they carry. Event data is
 * self-contained JSON: every line carries its resolved tax and its computed
 * cents, so read models and notifications never need the rounding code.
 */

export type InvoiceType = 'invoice' | 'credit_note';

export interface Address {
  readonly street1: string | null;
  readonly street2: string | null;
  readonly postalCode: string | null;
  readonly city: string | null;
  readonly county: string | null;
  readonly country: string | null;
  readonly state: string | null;
}

export interface InvoiceCustomer {
  readonly id: string;
  readonly handle: string | null;
  readonly name: string | null;
  /** Where mail about the invoice goes (an inline customer's, or the record's when booked); absent on invoices created before it was kept. */
  readonly email?: string | null;
  readonly billingAddress: Address;
}

/**
 * A coupon redeemed on a draft invoice (its `discounts`), as the coupons
 * context's redemption answered it: the terms in the invoice's currency.
 */
export interface InvoiceDiscount {
  /** The redemption's id. */
  readonly id: string;
  readonly couponId: string;
  readonly promotionCodeId: string | null;
  readonly promotionCode: string | null;
  readonly name: string;
  readonly percentOff: number | null;
  /** Minor units of the invoice's currency. */
  readonly amountOff: number | null;
  /** Null: every line is eligible. */
  readonly productIds: readonly string[] | null;
  /** Lines totalling less than this before coupons are not discounted; null: no minimum. */
  readonly minimumAmount: number | null;
}

/** Discount as given on the line: exactly one member is non-null. */
export interface LineDiscount {
  readonly percentage: number | null;
  readonly amount: number | null;
}

/** A line as stored in events and state. */
export interface InvoiceLine {
  readonly id: string;
  readonly sku: string | null;
  readonly title: string | null;
  readonly description: string | null;
  readonly periodStart: string | null;
  readonly periodEnd: string | null;
  readonly quantity: number;
  readonly unitAmount: number;
  readonly discount: LineDiscount | null;
  readonly tax: ResolvedTax;
  /** computed: the discount in cents (the line's own and its invoice's coupons' part together) */
  readonly discountAmount: number;
  /** computed: the invoice's coupons' part of discountAmount (a draft's `discounts`); absent: none. */
  readonly couponAmount?: number;
  /** The price the line bills (a draft's line may name one): its product decides an appliesTo coupon; absent or null: none. */
  readonly priceId?: string | null;
  /** The product of `priceId` when the line was written; absent or null: none (no appliesTo coupon discounts the line). */
  readonly productId?: string | null;
  /** computed: round(unitAmount × quantity) − discountAmount */
  readonly amount: number;
  readonly taxAmount: number;
}

export interface InvoiceSettlement {
  readonly date: string;
  readonly amount: number;
  readonly reference: string | null;
  readonly note: string | null;
}

export interface InvoiceCreatedData {
  readonly invoiceId: string;
  readonly type: InvoiceType;
  readonly customer: InvoiceCustomer;
  readonly currency: string;
  readonly date: string;
  readonly dueDate: string | null;
  readonly memo: string | null;
  readonly lines: readonly InvoiceLine[];
  /** set on credit notes: the booked invoice they credit */
  readonly creditedInvoiceId: string | null;
  /** set on duplicates and credit notes: the source invoice */
  readonly duplicatedFromInvoiceId: string | null;
  readonly createdAt: string;
  /**
   * The customer record the invoice is made out to (POST /invoices with
   * customerId): `customer` is its snapshot, refreshed while a draft and
   * frozen at booking. Absent or null: a one-off customer given inline.
   */
  readonly customerId?: string | null;
  /** Coupons redeemed on the draft (POST /invoices with discounts); absent: none. */
  readonly discounts?: readonly InvoiceDiscount[];
}
/** The draft after the update, in full. */
export interface InvoiceUpdatedData {
  readonly invoiceId: string;
  readonly date: string;
  readonly currency: string;
  readonly dueDate: string | null;
  readonly lines: readonly InvoiceLine[];
  readonly updatedAt: string;
  /** The customer record's snapshot as of the update (drafts made out to a customer record only). */
  readonly customer?: InvoiceCustomer;
  /** The draft's coupons after the update (absent: unchanged). */
  readonly discounts?: readonly InvoiceDiscount[];
}
/** Records the frozen totals so the booked figures never depend on recomputation. */
export interface InvoiceBookedData {
  readonly invoiceId: string;
  readonly type: InvoiceType;
  readonly handle: string;
  readonly date: string;
  readonly dueDate: string | null;
  /** The lines as booked, at the tax rates current at booking (absent on events written before repricing). */
  readonly lines?: readonly InvoiceLine[];
  readonly totalExclVat: number;
  readonly totalVat: number;
  readonly totalInclVat: number;
  readonly creditedInvoiceId: string | null;
  readonly bookedAt: string;
  /** The customer record's snapshot frozen at booking (invoices made out to a customer record only). */
  readonly customer?: InvoiceCustomer;
}
export interface InvoiceSettlementAddedData extends InvoiceSettlement {
  readonly invoiceId: string;
  readonly addedAt: string;
  /** The invoice's settlement status after this settlement (the `invoice.settled` notification is sent on `settled`). */
  readonly settlementStatus: SettlementStatus;
  /**
   * On an invoice: the booked credit note this settlement applies, so the
   * invoice knows how much its credit notes credit. Absent or null: a payment
   * or refund (and on events written before credit tracking).
   */
  readonly creditNoteId?: string | null;
  /** On a credit note: the invoice it was applied to, which settles the credit note. */
  readonly appliedToInvoiceId?: string | null;
  /** A settlement the payments context records: a payment of the invoice (its charge) or a refund of it. */
  readonly paymentId?: string | null;
  /** On a refund made for a credit note's refundAmount (by the payments context): that credit note. */
  readonly refundedCreditNoteId?: string | null;
  /** On the application of a credit note that refunds: the refund the payments context is to make. */
  readonly refundToMake?: number;
  /** On the application of a credit note with lines: what it credits of each line of the invoice. */
  readonly creditedLines?: readonly CreditedLine[];
  /**
   * A settlement from the customer's credit balance: credit applied at booking
   * (positive) or given back on a void (negative); the customer's balance
   * entry of the same amount. Absent or null: any other settlement.
   */
  readonly balanceEntryId?: string | null;
}
/** What a credit note credits of one line of the invoice it credits (positive figures, in the direction of the line). */
export interface CreditedLine {
  readonly lineId: string;
  /** The quantity credited; 0 for a credit of an amount. */
  readonly quantity: number;
  readonly amount: number;
  readonly taxAmount: number;
}

export const CREDIT_NOTE_REASONS = ['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory', 'other'] as const;
export type CreditNoteReason = (typeof CREDIT_NOTE_REASONS)[number];

/**
 * Where a credit note's money goes (positive figures): it reduces what is
 * still due on the invoice first (`dueReducedAmount`); the rest is refunded
 * through the payments context, left as credit to the customer, or settled
 * outside the service. The four always add up to the credit note's total.
 */
export interface CreditNoteDisposition {
  readonly invoiceId: string;
  readonly reason: CreditNoteReason;
  readonly dueReducedAmount: number;
  readonly refundAmount: number;
  readonly creditAmount: number;
  readonly outOfBandAmount: number;
}
/** On a credit note issued with POST /invoices/{id}/credit-notes, after its InvoiceBooked: its disposition. */
export interface CreditNoteIssuedData extends CreditNoteDisposition {
  readonly creditNoteId: string;
  readonly issuedAt: string;
}
/** On the source stream: it was copied (reverse false) or credited (reverse true) into newInvoiceId. */
export interface InvoiceDuplicatedData {
  readonly invoiceId: string;
  readonly newInvoiceId: string;
  readonly reverse: boolean;
  readonly duplicatedAt: string;
}

/**
 * A booked, unpaid invoice is void: nothing is due and it is no longer collected; its number stays used.
 * Carries the customer and currency a customer's balance is kept in, so what follows a void (credit returned)
 * needs nothing but this event.
 */
export interface InvoiceVoidedData {
  readonly invoiceId: string;
  readonly customerId: string;
  readonly currency: string;
  readonly voidedAt: string;
}
/** The invoice is not expected to be collected: dunning stops, it stays payable. */
export interface InvoiceMarkedUncollectibleData {
  readonly invoiceId: string;
  readonly markedAt: string;
}

/**
 * The invoice's hosted page link was replaced: links are sealed over the link version, so every link made with an
 * earlier version stops opening the page (a link that reached the wrong person).
 */
export interface InvoiceHostedLinkRotatedData {
  readonly invoiceId: string;
  /** The new link version (the first link of a booked invoice has version 0). */
  readonly linkVersion: number;
  readonly rotatedAt: string;
}

export type InvoiceCreated = DomainEvent<'InvoiceCreated', InvoiceCreatedData>;
export type InvoiceUpdated = DomainEvent<'InvoiceUpdated', InvoiceUpdatedData>;
export type InvoiceBooked = DomainEvent<'InvoiceBooked', InvoiceBookedData>;
export type InvoiceSettlementAdded = DomainEvent<'InvoiceSettlementAdded', InvoiceSettlementAddedData>;
export type InvoiceDuplicated = DomainEvent<'InvoiceDuplicated', InvoiceDuplicatedData>;
export type InvoiceVoided = DomainEvent<'InvoiceVoided', InvoiceVoidedData>;
export type InvoiceMarkedUncollectible = DomainEvent<'InvoiceMarkedUncollectible', InvoiceMarkedUncollectibleData>;
export type CreditNoteIssued = DomainEvent<'CreditNoteIssued', CreditNoteIssuedData>;
export type InvoiceHostedLinkRotated = DomainEvent<'InvoiceHostedLinkRotated', InvoiceHostedLinkRotatedData>;
export type InvoiceEvent =
  | InvoiceCreated
  | InvoiceUpdated
  | InvoiceBooked
  | InvoiceSettlementAdded
  | InvoiceDuplicated
  | InvoiceVoided
  | InvoiceMarkedUncollectible
  | CreditNoteIssued
  | InvoiceHostedLinkRotated;
