/**
 * The port every payment provider adapter implements (sandbox, manual,
 * stripe; the next gateway, Adyen or Mollie, is one more adapter behind this
 * interface, registered in PaymentGateways in payments.module.ts, its name
 * added to KNOWN_PROVIDERS with its credentials' checks in domain/provider.ts,
 * and, when it pushes events, a route beside gateway-webhooks/ that turns
 * them into the same outcomes as a lookup).
 *
 * A charge is identified by `reference`, our payment (attempt) id, which the
 * adapter passes to the gateway as its idempotency key: charging the same
 * reference again never charges twice, it answers the first outcome. So a
 * caller that does not know what happened (`unknown`, or a crash between the
 * charge and recording its outcome) may `lookup` the reference, or charge it
 * again with the very same request. A retry after a soft decline is a new
 * attempt: a new reference.
 *
 * Refunds follow the same rules with the refund id as their reference: the
 * same reference again answers the first outcome, and `lookupRefund` tells
 * what became of one whose answer was lost.
 *
 * Adapters answer outcomes; they throw only on programming errors (such as a
 * reference reused for a different amount, currency or token).
 */

/** What a charge answered. */
export type GatewayOutcome =
  /** Charged. */
  | { readonly kind: 'succeeded'; readonly providerReference: string }
  /** Accepted, not decided yet (bank debits and the like): the payment stays pending; a lookup or the gateway's event tells the end. */
  | { readonly kind: 'processing'; readonly providerReference: string }
  /** The customer must act first (3-D Secure), at `nextActionUrl` when the gateway gave one. */
  | { readonly kind: 'requires_action'; readonly providerReference: string; readonly nextActionUrl: string | null }
  /** Refused: nothing was charged. `soft` (insufficient funds and the like): a later attempt may succeed. */
  | { readonly kind: 'declined'; readonly code: string; readonly message: string; readonly soft: boolean }
  /** The gateway was not reached: nothing was charged; retryable, with the same reference. */
  | { readonly kind: 'unreachable'; readonly message: string }
  /** No answer in time (the charge may or may not have been made): ask again with lookup(). */
  | { readonly kind: 'unknown'; readonly message: string };

/**
 * What a lookup answered: the recorded outcome of the charge with that
 * reference (`succeeded` or `declined`), `not_found` when the gateway holds
 * no charge with it (none was made: the caller may charge again, with the
 * same reference), or `unknown` when the lookup itself got no answer (ask
 * again later). Never `unreachable`: a lookup that did not reach the gateway
 * does not show that nothing was charged, so adapters answer `unknown`.
 */
export type LookupOutcome =
  | Extract<GatewayOutcome, { kind: 'succeeded' | 'declined' | 'processing' | 'requires_action' | 'unknown' }>
  | { readonly kind: 'not_found'; readonly message: string };

export interface ChargeRequest {
  /** Our payment id: the gateway's idempotency key, unique per environment. */
  readonly reference: string;
  readonly amount: number;
  /** ISO 4217, upper case. */
  readonly currency: string;
  /** The payment method token the provider issued. */
  readonly token: string;
  /** The environment's decrypted provider credentials (see CredentialVault); null for providers without any. */
  readonly credentials: object | null;
  readonly environmentId: string;
  /** The invoice paid: gateways that keep metadata record it. */
  readonly invoiceId: string;
  /** Made by the service without the customer present (a collection try): gateways then never ask the customer to act. */
  readonly offSession: boolean;
  /** What the payment holds of the gateway's own id (set once it answered processing or requires_action); null before. Lookups start from it. */
  readonly providerReference: string | null;
  /** Where the customer comes back to after acting at the gateway (the hosted invoice page); null when not on a page. */
  readonly returnUrl: string | null;
}

/** A refund of (part of) a charge, identified by our refund id; the same reference again never refunds twice. */
export interface RefundRequest {
  /** Our refund id: the gateway's idempotency key, unique per environment. */
  readonly reference: string;
  /** The charge's reference (our payment id). */
  readonly chargeReference: string;
  /** The gateway's id of the charge (the succeeded payment's providerReference). */
  readonly chargeProviderReference: string | null;
  /** minor units, 1 … what is left of the charge */
  readonly amount: number;
  readonly currency: string;
  readonly credentials: object | null;
  readonly environmentId: string;
}

/** What a refund answered: made, refused (nothing refunded), not reached (nothing refunded), or no answer in time (look it up). */
export type GatewayRefundOutcome =
  | { readonly kind: 'succeeded'; readonly providerReference: string }
  /** Accepted, not decided yet: the refund stays pending until a lookup or the gateway's event tells. */
  | { readonly kind: 'pending'; readonly providerReference: string }
  | { readonly kind: 'declined'; readonly code: string; readonly message: string }
  | { readonly kind: 'unreachable'; readonly message: string }
  | { readonly kind: 'unknown'; readonly message: string };

/** What a refund lookup answered: the recorded outcome, `not_found` (no refund was made), or `unknown` (ask again later). */
export type RefundLookupOutcome =
  Extract<GatewayRefundOutcome, { kind: 'succeeded' | 'declined' | 'pending' | 'unknown' }> | { readonly kind: 'not_found'; readonly message: string };

export interface PaymentGateway {
  /** The provider name the environment's configuration uses (`sandbox`, `manual`, …). */
  readonly name: string;
  charge(request: ChargeRequest): Promise<GatewayOutcome>;
  /** What became of the charge with `request.reference` in `request.environmentId` (the rest of the request is not used by lookups). */
  lookup(request: ChargeRequest): Promise<LookupOutcome>;
  refund(request: RefundRequest): Promise<GatewayRefundOutcome>;
  /** What became of the refund with `request.reference` in `request.environmentId`. */
  lookupRefund(request: RefundRequest): Promise<RefundLookupOutcome>;
}
