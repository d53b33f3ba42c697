import type Stripe from 'stripe';
import { GatewayOutcome, GatewayRefundOutcome } from '../payment-gateway';

/**
 * What Stripe's answers mean for a payment, in one place: the charge call,
 * its lookup and its webhook events all go through these functions, so the
 * same PaymentIntent always decides the same outcome. Pure: objects and
 * errors in, outcomes out (unit-tested without a server).
 */

/**
 * Decline codes after which a later try may succeed (dunning retries them):
 * the card is fine, the moment was not. Every other decline is hard, among
 * them `card_declined`/`generic_decline`, `expired_card`, `incorrect_cvc`,
 * `stolen_card`, `fraudulent` and `authentication_required` (an off-session
 * charge the bank wants the customer present for: retrying off-session
 * cannot succeed).
 */
export const SOFT_DECLINE_CODES: ReadonlySet<string> = new Set([
  'insufficient_funds',
  'processing_error',
  'try_again_later',
  'issuer_not_available',
  'reenter_transaction',
  'rate_limit',
]);

/** The failure code recorded for a decline: the issuer's reason when Stripe gives one, else Stripe's own error code. */
export function failureCodeOf(error: { readonly decline_code?: string | null; readonly code?: string | null }): string {
  return error.decline_code || error.code || 'card_declined';
}

export function isSoftDecline(code: string): boolean {
  return SOFT_DECLINE_CODES.has(code);
}

/** A PaymentIntent as it stands: what it means for our payment. */
export function outcomeOfIntent(intent: Pick<Stripe.PaymentIntent, 'id' | 'status' | 'next_action' | 'last_payment_error'>): GatewayOutcome {
  switch (intent.status) {
    case 'succeeded':
      return { kind: 'succeeded', providerReference: intent.id };
    case 'processing':
    // Captured later (we never ask for manual capture, but an intent changed in the dashboard may be): held, not decided.
    case 'requires_capture':
      return { kind: 'processing', providerReference: intent.id };
    case 'requires_action':
      return { kind: 'requires_action', providerReference: intent.id, nextActionUrl: intent.next_action?.redirect_to_url?.url ?? null };
    case 'requires_payment_method': {
      // A confirmation that failed: the intent is back to wanting a payment method, with the reason.
      const error = intent.last_payment_error;
      const code = error ? failureCodeOf(error) : 'payment_failed';
      return { kind: 'declined', code, message: error?.message ?? 'Stripe: the payment failed', soft: isSoftDecline(code) };
    }
    case 'canceled':
      return { kind: 'declined', code: 'canceled', message: 'Stripe: the PaymentIntent was canceled', soft: false };
    default:
      // requires_confirmation: never confirmed, so nothing was charged yet; asked again later.
      return { kind: 'unknown', message: `Stripe: the PaymentIntent is ${intent.status}` };
  }
}

/** The parts of a Stripe client error (stripe.errors.*) the outcome depends on. */
export interface StripeErrorFacts {
  /** The client's class name: StripeCardError, StripeConnectionError, … */
  readonly type?: string;
  readonly code?: string;
  readonly decline_code?: string;
  readonly message?: string;
  readonly statusCode?: number;
  /** For a connection error, the underlying error (its code ETIMEDOUT for a time-out). */
  readonly detail?: unknown;
}

/**
 * What a failed call means. The line between `unreachable` (nothing was
 * charged: dunning may try again under a new reference) and `unknown` (it
 * may have been: look it up under the same reference) is drawn so no answer
 * can make a second charge:
 * - card errors (402): declined, soft or hard by the decline code;
 * - invalid requests (400: an unknown payment method, a currency Stripe does
 *   not take): declined hard, nothing was charged;
 * - rate limits (429), a refused key (401, 403), and a connection that was
 *   never made (refused, no such host, no route): unreachable. Stripe says
 *   it carried nothing out, or the request never left this machine (the
 *   client has already retried these itself with the same Idempotency-Key);
 * - a connection lost after the request may have been sent (reset, hang-up),
 *   a time-out, a 5xx and anything else: unknown, the request may have been
 *   carried out: the lookup repeats it under the same key.
 */
export function outcomeOfError(error: StripeErrorFacts): GatewayOutcome {
  const message = `Stripe: ${error.message ?? 'the call failed'}`;
  switch (error.type) {
    case 'StripeCardError': {
      const code = failureCodeOf(error);
      return { kind: 'declined', code, message, soft: isSoftDecline(code) };
    }
    case 'StripeInvalidRequestError':
      return { kind: 'declined', code: error.code ?? 'invalid_request', message, soft: false };
    case 'StripeRateLimitError':
    case 'StripeAuthenticationError':
    case 'StripePermissionError':
      return { kind: 'unreachable', message };
    case 'StripeConnectionError':
      return neverConnected(error) ? { kind: 'unreachable', message } : { kind: 'unknown', message };
    default:
      return { kind: 'unknown', message };
  }
}

/** A Refund as it stands. */
export function outcomeOfRefund(
  refund: Pick<Stripe.Refund, 'id' | 'status' | 'failure_reason'>,
): Extract<GatewayRefundOutcome, { kind: 'succeeded' | 'declined' | 'pending' }> {
  switch (refund.status) {
    case 'succeeded':
      return { kind: 'succeeded', providerReference: refund.id };
    case 'failed':
    case 'canceled':
      return { kind: 'declined', code: refund.failure_reason ?? `refund_${refund.status}`, message: `Stripe: the refund ${refund.status}` };
    default:
      // pending, requires_action: the money is on its way back, or not yet; refund.updated tells.
      return { kind: 'pending', providerReference: refund.id };
  }
}

/** A failed refund call: like a charge's, but every decline is simply a decline (nothing was refunded). */
export function refundOutcomeOfError(error: StripeErrorFacts): GatewayRefundOutcome {
  const outcome = outcomeOfError(error);
  return outcome.kind === 'declined' ? { kind: 'declined', code: outcome.code, message: outcome.message } : (outcome as GatewayRefundOutcome);
}

/** A dispute's state: open while Stripe decides, then won or lost (an inquiry closed without a chargeback counts as won). */
export function disputeStateOf(status: Stripe.Dispute['status']): 'won' | 'lost' | null {
  if (status === 'won' || status === 'warning_closed') return 'won';
  if (status === 'lost') return 'lost';
  return null;
}

/** Socket errors raised before a connection exists: no byte of the request reached Stripe. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function neverConnected(error: StripeErrorFacts): boolean {
  const detail = error.detail as { code?: unknown } | undefined;
  return typeof detail === 'object' && detail !== null && typeof detail.code === 'string' && NOT_CONNECTED.has(detail.code);
}
