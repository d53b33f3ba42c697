import { DomainEvent } from '@billing/shared-kernel';
import { KnownProvider } from './provider';

/** The events of the Payment aggregate (folded in payment.ts, decided in payment-decisions.ts). */

export interface PaymentCreatedData {
  readonly paymentId: string;
  readonly invoiceId: string;
  readonly customerId: string;
  /** minor units, 1 … the invoice's total due when created */
  readonly amount: number;
  /** uppercase ISO 4217, the invoice's */
  readonly currency: string;
  readonly provider: KnownProvider;
  /** 1 for a direct payment; n for the n-th automatic collection try of the invoice */
  readonly attempt: number;
  /** The payment method token, sealed (PaymentTokenVault); absent on payments recorded before it was kept: those cannot be charged again. */
  readonly method?: string;
  readonly createdAt: string;
}
/** Carries the invoice and the amount: invoicing settles the invoice from this event alone. */
export interface PaymentSucceededData {
  readonly paymentId: string;
  readonly invoiceId: string;
  readonly amount: number;
  readonly providerReference: string;
  readonly succeededAt: string;
}
export interface PaymentFailedData {
  readonly paymentId: string;
  readonly failureCode: string;
  readonly failureMessage: string;
  /** A soft decline or an unreachable gateway: dunning may try again. A hard decline is final. */
  readonly retryable: boolean;
  readonly failedAt: string;
}
/** A refund reserved (it counts against the refundable amount) before the gateway is asked to make it. */
export interface PaymentRefundRequestedData {
  readonly paymentId: string;
  readonly invoiceId: string;
  readonly refundId: string;
  readonly amount: number;
  readonly requestedAt: string;
  /** A refund of a credit note's refundAmount: that credit note (absent for a refund asked for over the API). */
  readonly creditNoteId?: string;
}
/**
 * Carries the invoice: invoicing unsettles it by the amount from this event
 * alone. Recorded once the gateway made the refund; events written before
 * refunds went to the gateway have no PaymentRefundRequested before them and
 * no providerReference.
 */
export interface PaymentRefundedData {
  readonly paymentId: string;
  readonly invoiceId: string;
  readonly refundId: string;
  readonly amount: number;
  readonly refundedAt: string;
  readonly providerReference?: string;
  /** As requested: the credit note this refund was made for, so invoicing knows it is no longer outstanding. */
  readonly creditNoteId?: string;
}
/** The gateway refused or was not reached: nothing was refunded and the reservation is released. */
export interface PaymentRefundFailedData {
  readonly paymentId: string;
  readonly refundId: string;
  readonly failureCode: string;
  readonly failureMessage: string;
  readonly failedAt: string;
}

/** The gateway wants the customer to act (3-D Secure) before it charges; the payment stays open. */
export interface PaymentActionRequiredData {
  readonly paymentId: string;
  readonly providerReference: string;
  /** Where the customer acts (a redirect the gateway gave); null when the gateway gave none (its own client-side flow). */
  readonly nextActionUrl: string | null;
  readonly requiredAt: string;
}
/** The gateway holds the charge but has not decided it (Stripe's `processing`), or the customer's action is done and it is deciding. */
export interface PaymentProcessingData {
  readonly paymentId: string;
  readonly providerReference: string;
  readonly processingAt: string;
}
/** The customer disputed a succeeded charge: the disputed amount is taken back from the invoice until the dispute is won. */
export interface PaymentDisputedData {
  readonly paymentId: string;
  readonly invoiceId: string;
  /** The provider's id of the dispute (Stripe `dp_…`). */
  readonly disputeId: string;
  readonly amount: number;
  readonly reason: string;
  readonly disputedAt: string;
}
/** The dispute's end: won gives the amount back to the invoice; lost leaves it taken. */
export interface PaymentDisputeClosedData {
  readonly paymentId: string;
  readonly invoiceId: string;
  readonly disputeId: string;
  readonly amount: number;
  readonly won: boolean;
  readonly closedAt: string;
}

export type PaymentCreated = DomainEvent<'PaymentCreated', PaymentCreatedData>;
export type PaymentActionRequired = DomainEvent<'PaymentActionRequired', PaymentActionRequiredData>;
export type PaymentProcessing = DomainEvent<'PaymentProcessing', PaymentProcessingData>;
export type PaymentDisputed = DomainEvent<'PaymentDisputed', PaymentDisputedData>;
export type PaymentDisputeClosed = DomainEvent<'PaymentDisputeClosed', PaymentDisputeClosedData>;
export type PaymentSucceeded = DomainEvent<'PaymentSucceeded', PaymentSucceededData>;
export type PaymentFailed = DomainEvent<'PaymentFailed', PaymentFailedData>;
export type PaymentRefundRequested = DomainEvent<'PaymentRefundRequested', PaymentRefundRequestedData>;
export type PaymentRefunded = DomainEvent<'PaymentRefunded', PaymentRefundedData>;
export type PaymentRefundFailed = DomainEvent<'PaymentRefundFailed', PaymentRefundFailedData>;
export type PaymentEvent =
  | PaymentCreated
  | PaymentActionRequired
  | PaymentProcessing
  | PaymentSucceeded
  | PaymentFailed
  | PaymentRefundRequested
  | PaymentRefunded
  | PaymentRefundFailed
  | PaymentDisputed
  | PaymentDisputeClosed;

/** The failure code recorded when the gateway could not be reached (tok_gateway_error). */
export const GATEWAY_UNREACHABLE = 'gateway_unreachable';
