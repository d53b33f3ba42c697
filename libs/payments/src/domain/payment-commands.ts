/** The commands of the Payment aggregate (decided in payment-decisions.ts), and the gateway's answers they record. */

/** What the payments context needs to know of an invoice, read from invoicing's public API. */
export interface InvoiceFacts {
  readonly invoiceId: string;
  readonly status: 'draft' | 'booked' | 'void';
  readonly type: 'invoice' | 'credit_note';
  /** as invoices store it (uppercase ISO 4217) */
  readonly currency: string;
  readonly customerId: string;
  /** totalInclVat − settledAmount, minor units */
  readonly totalDue: number;
}

export interface CreatePayment {
  readonly paymentId: string;
  /** As requested: named in the 422 when the invoice does not exist. */
  readonly invoiceId: string;
  /** null: no such invoice in the caller's environment */
  readonly invoice: InvoiceFacts | null;
  /** absent: the invoice's total due */
  readonly requestedAmount?: unknown;
  readonly provider: unknown;
  /** Whether the provider is enabled in the caller's environment. */
  readonly providerEnabled: boolean;
  /**
   * A pending payment of the same invoice, if any. Only as reliable as its
   * source: the caller must read it under a per-invoice lock (or an
   * equivalent stream) so two concurrent requests cannot both see null.
   */
  readonly pendingPaymentId: string | null;
  /** default 1 (a direct payment); dunning passes the n-th try */
  readonly attempt?: number;
  /** Asked for by the customer (the hosted page): only a provider that takes their money (CUSTOMER_PROVIDERS). */
  readonly byCustomer?: boolean;
  /** The payment method token, sealed by the caller (PaymentTokenVault): kept on the payment for a charge made again. */
  readonly method?: string;
}

/**
 * What the gateway said. `unknown` (a timeout, or a crash after the call) is
 * accepted so a caller can pass any answer through; it records nothing and
 * leaves the payment pending for the worker that asks again.
 */
export type PaymentOutcome =
  | { readonly kind: 'succeeded'; readonly providerReference: string }
  | { readonly kind: 'declined'; readonly code: string; readonly message: string; readonly soft: boolean }
  | { readonly kind: 'unreachable'; readonly message: string }
  /** The gateway holds the charge and decides later (Stripe `processing`): the payment stays pending, with the gateway's reference. */
  | { readonly kind: 'processing'; readonly providerReference: string }
  /** The customer must act first (3-D Secure): the payment waits at `requires_action`. */
  | { readonly kind: 'requires_action'; readonly providerReference: string; readonly nextActionUrl: string | null }
  | { readonly kind: 'unknown' };

export interface RefundPayment {
  readonly refundId: string;
  /** The PUT body's amount, unchecked. */
  readonly amount: unknown;
  /** For the 404 of a payment that does not exist. */
  readonly paymentId?: string;
  /** A refund of a credit note's refundAmount: that credit note. */
  readonly creditNoteId?: string;
  /**
   * A direct refund (no credit note): what its invoice's payments may still refund together once its credit notes
   * have what they are to refund (refundableOfInvoice); absent: not bounded by the invoice.
   */
  readonly refundableOfInvoice?: number;
}

/** What the gateway said of a refund; `unknown` records nothing (a worker asks again). */
export type RefundOutcome =
  | { readonly kind: 'succeeded'; readonly providerReference: string }
  | { readonly kind: 'declined'; readonly code: string; readonly message: string }
  | { readonly kind: 'unreachable'; readonly message: string }
  | { readonly kind: 'unknown' };

/** A dispute as the gateway reports it. */
export interface GatewayDispute {
  readonly disputeId: string;
  readonly amount: number;
  readonly reason: string;
  /** null while open; won or lost once closed. */
  readonly closed: 'won' | 'lost' | null;
}
