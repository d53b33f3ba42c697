import { Evolver } from '@billing/shared-kernel';
import { PaymentCreated, PaymentEvent, PaymentRefunded } from './payment-events';
import { KnownProvider } from './provider';

/**
 * The Payment aggregate, decider style: one stream per payment, `evolve`
 * folds its events (here; the events are in payment-events.ts), one pure
 * `decide*` per command (payment-decisions.ts, the commands in
 * payment-commands.ts). Time comes from
 * CommandMetadata; the payment and refund ids come with the commands (the
 * caller draws them from meta.newId() or derives them, so a retried request
 * can reuse them).
 *
 * A payment is recorded (PaymentCreated, status pending) before the gateway
 * is called, with the payment id as the gateway's idempotency key: a crash or
 * timeout after the call leaves a pending payment that a worker resolves by
 * asking the gateway about that id again, so the customer is never charged
 * twice. An unknown outcome writes nothing; only a known one is recorded.
 *
 * Currency: uppercase ISO 4217 (`EUR`), exactly as invoices store and show it.
 * The payment token is recorded only sealed (`method`, by the caller with the
 * PaymentTokenVault: the decider never sees it in clear), so a charge the gateway never saw (a
 * process died before the call) can be made later under the same reference.
 */

export const PAYMENT_STREAM_TYPE = 'payment';

/**
 * pending: the gateway has not told the outcome (or is processing it); requires_action: the customer must
 * act first (3-D Secure at `nextAction.url`); disputed: succeeded, then the customer disputed the charge.
 */
export type PaymentStatus = 'pending' | 'requires_action' | 'succeeded' | 'failed' | 'disputed';
export const PAYMENT_STATUSES: readonly PaymentStatus[] = ['pending', 'requires_action', 'succeeded', 'failed', 'disputed'];
/** Statuses whose outcome is still to come: the payment holds its invoice (no second payment) and is looked up. */
export const OPEN_PAYMENT_STATUSES: readonly PaymentStatus[] = ['pending', 'requires_action'];

// ---------------------------------------------------------------- state

/** pending: reserved and asked of the gateway, outcome not known yet; failed: nothing was refunded. */
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface Refund {
  readonly id: string;
  readonly amount: number;
  readonly status: RefundStatus;
  readonly providerReference: string | null;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Present on a refund made for a credit note's refundAmount: that credit note. */
  readonly creditNoteId?: string;
}

export interface Dispute {
  readonly id: string;
  readonly amount: number;
  readonly reason: string;
  readonly status: 'open' | 'won' | 'lost';
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface Payment {
  readonly status: PaymentStatus;
  readonly id: string;
  readonly invoiceId: string;
  readonly customerId: string;
  readonly amount: number;
  readonly currency: string;
  readonly provider: KnownProvider;
  readonly attempt: number;
  readonly providerReference: string | null;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  /** null unless failed */
  readonly retryable: boolean | null;
  /** The succeeded refunds' sum. */
  readonly refundedAmount: number;
  readonly refunds: readonly Refund[];
  /** Only while requires_action: where the customer completes it. */
  readonly nextAction?: { readonly url: string | null };
  /** Only once the charge was disputed: the dispute, open or closed. */
  readonly dispute?: Dispute;
  /** The sealed payment method token it was asked with (never shown); absent when it was not kept. */
  readonly method?: string;
  readonly createdAt: string;
  /** createdAt until something happens to the payment */
  readonly updatedAt: string;
}

/** Before its PaymentCreated a payment stream holds nothing: `none`, like every aggregate of the service. */
export type PaymentState = { readonly status: 'none' } | Payment;

export function initialPaymentState(): PaymentState {
  return { status: 'none' };
}

export function evolvePayment(state: PaymentState, event: PaymentEvent): PaymentState {
  if (event.type === 'PaymentCreated') return createdPayment(event);
  // A stream always starts with PaymentCreated; anything else on an empty state is ignored.
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'PaymentActionRequired': {
      const { providerReference, nextActionUrl, requiredAt } = event.data;
      return { ...state, status: 'requires_action', providerReference, nextAction: { url: nextActionUrl }, updatedAt: requiredAt };
    }
    case 'PaymentProcessing':
      return { ...withoutNextAction(state), status: 'pending', providerReference: event.data.providerReference, updatedAt: event.data.processingAt };
    case 'PaymentSucceeded':
      return { ...withoutNextAction(state), status: 'succeeded', providerReference: event.data.providerReference, updatedAt: event.data.succeededAt };
    case 'PaymentFailed': {
      const { failureCode, failureMessage, retryable, failedAt } = event.data;
      return { ...withoutNextAction(state), status: 'failed', failureCode, failureMessage, retryable, updatedAt: failedAt };
    }
    case 'PaymentDisputed': {
      const { disputeId, amount, reason, disputedAt } = event.data;
      return {
        ...state,
        status: 'disputed',
        dispute: { id: disputeId, amount, reason, status: 'open', createdAt: disputedAt, updatedAt: disputedAt },
        updatedAt: disputedAt,
      };
    }
    case 'PaymentDisputeClosed': {
      const { won, closedAt } = event.data;
      if (!state.dispute) return state;
      return {
        ...state,
        status: won ? 'succeeded' : 'disputed',
        dispute: { ...state.dispute, status: won ? 'won' : 'lost', updatedAt: closedAt },
        updatedAt: closedAt,
      };
    }
    case 'PaymentRefundRequested': {
      const { refundId, amount, requestedAt, creditNoteId } = event.data;
      const refund: Refund = {
        id: refundId,
        amount,
        status: 'pending',
        providerReference: null,
        failureCode: null,
        failureMessage: null,
        createdAt: requestedAt,
        updatedAt: requestedAt,
        ...(creditNoteId ? { creditNoteId } : {}),
      };
      return { ...state, refunds: [...state.refunds, refund], updatedAt: requestedAt };
    }
    case 'PaymentRefunded':
      return refunded(state, event);
    case 'PaymentRefundFailed': {
      const { refundId, failureCode, failureMessage, failedAt } = event.data;
      const refunds = state.refunds.map((refund) =>
        refund.id === refundId ? { ...refund, status: 'failed' as const, failureCode, failureMessage, updatedAt: failedAt } : refund,
      );
      return { ...state, refunds, updatedAt: failedAt };
    }
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the payment as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

function createdPayment(event: PaymentCreated): Payment {
  const { paymentId, invoiceId, customerId, amount, currency, provider, attempt, method, createdAt } = event.data;
  return {
    status: 'pending',
    id: paymentId,
    invoiceId,
    customerId,
    amount,
    currency,
    provider,
    attempt,
    providerReference: null,
    failureCode: null,
    failureMessage: null,
    retryable: null,
    refundedAmount: 0,
    refunds: [],
    ...(method ? { method } : {}),
    createdAt,
    updatedAt: createdAt,
  };
}

/** A refund succeeded: the one requested, or one made at the gateway that was never requested here. */
function refunded(state: Payment, event: PaymentRefunded): Payment {
  const { refundId, amount, refundedAt, providerReference = null } = event.data;
  const requested = state.refunds.some((refund) => refund.id === refundId);
  const refunds = requested
    ? state.refunds.map((refund) => (refund.id === refundId ? { ...refund, status: 'succeeded' as const, providerReference, updatedAt: refundedAt } : refund))
    : [
        ...state.refunds,
        {
          id: refundId,
          amount,
          status: 'succeeded' as const,
          providerReference,
          failureCode: null,
          failureMessage: null,
          createdAt: refundedAt,
          updatedAt: refundedAt,
        },
      ];
  return { ...state, refundedAmount: state.refundedAmount + amount, refunds, updatedAt: refundedAt };
}

function withoutNextAction(payment: Payment): Payment {
  if (!payment.nextAction) return payment;
  const { nextAction: _done, ...rest } = payment;
  return rest;
}

/** Pending or requires_action: the outcome is still to come. */
export function isOpenPayment(payment: PaymentState): payment is Payment & { readonly status: 'pending' | 'requires_action' } {
  return payment.status !== 'none' && OPEN_PAYMENT_STATUSES.includes(payment.status);
}

export const paymentEvolver: Evolver<PaymentState, PaymentEvent> = {
  initialState: initialPaymentState,
  evolve: evolvePayment,
};

/** What can still be refunded: 0 unless succeeded; pending refunds are reserved. */
export function refundableAmount(payment: PaymentState): number {
  if (payment.status !== 'succeeded') return 0;
  const reserved = payment.refunds.reduce((sum, refund) => (refund.status === 'pending' ? sum + refund.amount : sum), 0);
  return payment.amount - payment.refundedAmount - reserved;
}

/** The refunds whose outcome the gateway has not told yet. */
export function pendingRefunds(payment: PaymentState): readonly Refund[] {
  return payment.status === 'none' ? [] : payment.refunds.filter((refund) => refund.status === 'pending');
}
