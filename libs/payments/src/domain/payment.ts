import { CommandMetadata, ConflictError, DomainEvent, Evolver, NotFoundError, ValidationError, assertAmountInRange } from '@billing/shared-kernel';
import { CUSTOMER_PROVIDERS, KnownProvider, assertKnownProvider } from './provider';

/**
 * The Payment aggregate, decider style: one stream per payment, `evolve`
 * folds its events, one pure `decide*` per command. Time comes from
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

// ---------------------------------------------------------------- events

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
  if (event.type === 'PaymentCreated') {
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
    case 'PaymentRefunded': {
      const { refundId, amount, refundedAt, providerReference = null } = event.data;
      const requested = state.refunds.some((refund) => refund.id === refundId);
      const refunds = requested
        ? state.refunds.map((refund) =>
            refund.id === refundId ? { ...refund, status: 'succeeded' as const, providerReference, updatedAt: refundedAt } : refund,
          )
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
    case 'PaymentRefundFailed': {
      const { refundId, failureCode, failureMessage, failedAt } = event.data;
      const refunds = state.refunds.map((refund) =>
        refund.id === refundId ? { ...refund, status: 'failed' as const, failureCode, failureMessage, updatedAt: failedAt } : refund,
      );
      return { ...state, refunds, updatedAt: failedAt };
    }
    default:
      return state; // an event type from a newer release: ignored rather than fatal
  }
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

// ---------------------------------------------------------------- create

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
 * Records a payment before the gateway is called. Checks run from the
 * request's own fields to the state of the world, so a malformed request is
 * a 422 whatever the invoice's state, and a 409 means "valid, but not now".
 */
export function decideCreatePayment(command: CreatePayment, state: PaymentState, meta: CommandMetadata): PaymentCreated[] {
  if (state.status !== 'none') throw new ConflictError('payment-exists', `payment ${command.paymentId} already exists`);
  const attempt = command.attempt ?? 1;
  if (!Number.isSafeInteger(attempt) || attempt < 1) throw new RangeError('attempt must be an integer >= 1');
  const requested = command.requestedAmount === undefined || command.requestedAmount === null ? null : positiveAmount(command.requestedAmount, '/amount');
  const provider = assertKnownProvider(command.provider, '/paymentMethod/provider');
  if (command.byCustomer === true && !CUSTOMER_PROVIDERS.includes(provider)) {
    throw ValidationError.at(
      '/paymentMethod/provider',
      `${provider} payments are recorded by staff, not made by customers`,
      'payment-provider-not-for-customers',
    );
  }

  const invoice = command.invoice;
  if (invoice === null) {
    throw ValidationError.at('/invoiceId', `there is no invoice ${command.invoiceId} in this environment`, 'invoice-not-found');
  }
  if (invoice.type !== 'invoice') {
    throw ValidationError.at('/invoiceId', 'is a credit note: only invoices are paid', 'invoice-not-payable');
  }
  if (invoice.status === 'void') {
    throw ValidationError.at('/invoiceId', 'is void: nothing is due on it', 'invoice-not-payable');
  }
  if (invoice.status !== 'booked') {
    throw ValidationError.at('/invoiceId', 'is a draft: only booked invoices can be paid', 'invoice-not-booked');
  }
  if (invoice.totalDue <= 0) {
    throw ValidationError.at('/invoiceId', `has nothing due (total due ${invoice.totalDue})`, 'invoice-not-payable');
  }
  const amount = requested ?? BigInt(invoice.totalDue);
  if (amount > BigInt(invoice.totalDue)) {
    throw ValidationError.at('/amount', `must not exceed the invoice's total due of ${invoice.totalDue}`, 'amount-exceeds-total-due');
  }
  if (!command.providerEnabled) {
    throw ValidationError.at('/paymentMethod/provider', `${provider} is not enabled in this environment`, 'payment-provider-not-enabled');
  }
  if (command.pendingPaymentId !== null) {
    throw new ConflictError(
      'payment-pending',
      `invoice ${invoice.invoiceId} has a pending payment ${command.pendingPaymentId}: wait for its outcome before paying again`,
    );
  }
  return [
    {
      type: 'PaymentCreated',
      schemaVersion: 1,
      data: {
        paymentId: command.paymentId,
        invoiceId: invoice.invoiceId,
        customerId: invoice.customerId,
        amount: Number(amount),
        currency: invoice.currency.toUpperCase(),
        provider,
        attempt,
        ...(command.method ? { method: command.method } : {}),
        createdAt: meta.now.toISOString(),
      },
    },
  ];
}

// ---------------------------------------------------------------- outcome

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

/**
 * Idempotent: only an open payment (pending, requires_action) takes an
 * outcome. A second report (the worker and the original request racing, a
 * redelivered or late gateway event) returns no events, so a payment
 * succeeds at most once and its invoice is settled at most once by whoever
 * reacts to PaymentSucceeded. The interim outcomes (processing,
 * requires_action) are recorded only when they change something, so a
 * repeated one records nothing, and one arriving after the final outcome
 * neither.
 */
export function decideRecordOutcome(
  outcome: PaymentOutcome,
  state: PaymentState,
  meta: CommandMetadata,
): Array<PaymentSucceeded | PaymentFailed | PaymentActionRequired | PaymentProcessing> {
  // Outcomes come from gateway calls for recorded payments only: an empty stream is a wiring bug.
  if (state.status === 'none') throw new Error('an outcome can only be recorded for an existing payment');
  if (!isOpenPayment(state)) return [];
  const at = meta.now.toISOString();
  switch (outcome.kind) {
    case 'unknown':
      return [];
    case 'processing':
      if (state.status === 'pending' && state.providerReference === outcome.providerReference) return [];
      return [{ type: 'PaymentProcessing', schemaVersion: 1, data: { paymentId: state.id, providerReference: outcome.providerReference, processingAt: at } }];
    case 'requires_action':
      if (state.status === 'requires_action' && state.providerReference === outcome.providerReference && state.nextAction?.url === outcome.nextActionUrl) {
        return [];
      }
      return [
        {
          type: 'PaymentActionRequired',
          schemaVersion: 1,
          data: { paymentId: state.id, providerReference: outcome.providerReference, nextActionUrl: outcome.nextActionUrl, requiredAt: at },
        },
      ];
    case 'succeeded':
      if (outcome.providerReference.length === 0) throw new Error('a succeeded payment needs the provider reference');
      return [
        {
          type: 'PaymentSucceeded',
          schemaVersion: 1,
          data: { paymentId: state.id, invoiceId: state.invoiceId, amount: state.amount, providerReference: outcome.providerReference, succeededAt: at },
        },
      ];
    case 'declined':
      return [failed(state.id, outcome.code, outcome.message, outcome.soft, at)];
    case 'unreachable':
      // The gateway never saw the charge, so trying again cannot charge twice.
      return [failed(state.id, GATEWAY_UNREACHABLE, outcome.message, true, at)];
  }
}

function failed(paymentId: string, failureCode: string, failureMessage: string, retryable: boolean, failedAt: string): PaymentFailed {
  return { type: 'PaymentFailed', schemaVersion: 1, data: { paymentId, failureCode, failureMessage, retryable, failedAt } };
}

// ---------------------------------------------------------------- refund

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

/**
 * Reserves a refund before the gateway is asked to make it (the refund id is
 * the gateway's idempotency reference). Several partial refunds are allowed
 * up to the payment's amount; pending ones count. The check runs against the
 * folded state, so concurrent refunds are serialised by the stream's expected
 * version: the loser retries against the new state and is refused once the
 * payment is exhausted. The same refund id again (a retried request) decides
 * nothing: its refund is already reserved.
 */
export function decideRefund(command: RefundPayment, state: PaymentState, meta: CommandMetadata): PaymentRefundRequested[] {
  if (state.status === 'none') throw new NotFoundError('payment', command.paymentId ?? 'to refund');
  if (state.refunds.some((refund) => refund.id === command.refundId)) return [];
  const amount = positiveAmount(command.amount, '/amount');
  if (state.status !== 'succeeded') {
    throw new ConflictError('payment-not-refundable', `payment ${state.id} is ${state.status}: only succeeded payments can be refunded`);
  }
  const refundable = BigInt(refundableAmount(state));
  if (amount > refundable) {
    const pending = pendingRefunds(state).length;
    const detail =
      (refundable === 0n ? 'must not exceed the refundable amount of 0' : `must not exceed the refundable amount of ${refundable}`) +
      (pending > 0
        ? ` (${pending} refund${pending === 1 ? '' : 's'} still pending at the provider count against it)`
        : refundable === 0n
          ? ': the payment is fully refunded'
          : '');
    throw ValidationError.at('/amount', detail, 'refund-exceeds-payment');
  }
  const ofInvoice = command.refundableOfInvoice;
  if (ofInvoice !== undefined && amount > BigInt(ofInvoice)) {
    throw ValidationError.at(
      '/amount',
      `must not exceed ${Math.max(ofInvoice, 0)}: the rest of what the invoice's payments paid is being refunded for its credit notes or refunded already`,
      'refund-exceeds-payment',
    );
  }
  return [
    {
      type: 'PaymentRefundRequested',
      schemaVersion: 1,
      data: {
        paymentId: state.id,
        invoiceId: state.invoiceId,
        refundId: command.refundId,
        amount: Number(amount),
        requestedAt: meta.now.toISOString(),
        ...(command.creditNoteId ? { creditNoteId: command.creditNoteId } : {}),
      },
    },
  ];
}

/** What the gateway said of a refund; `unknown` records nothing (a worker asks again). */
export type RefundOutcome =
  | { readonly kind: 'succeeded'; readonly providerReference: string }
  | { readonly kind: 'declined'; readonly code: string; readonly message: string }
  | { readonly kind: 'unreachable'; readonly message: string }
  | { readonly kind: 'unknown' };

/**
 * Idempotent: only a pending refund takes an outcome, so a refund is made at
 * most once and its invoice unsettled at most once by whoever reacts to
 * PaymentRefunded.
 */
export function decideRecordRefundOutcome(
  refundId: string,
  outcome: RefundOutcome,
  state: PaymentState,
  meta: CommandMetadata,
): Array<PaymentRefunded | PaymentRefundFailed> {
  // Outcomes come from gateway calls for reserved refunds only: anything else is a wiring bug.
  const refund = state.status === 'none' ? undefined : state.refunds.find((candidate) => candidate.id === refundId);
  if (state.status === 'none' || !refund) throw new Error(`an outcome can only be recorded for a requested refund (${refundId})`);
  if (refund.status !== 'pending') return [];
  const at = meta.now.toISOString();
  switch (outcome.kind) {
    case 'unknown':
      return [];
    case 'succeeded':
      if (outcome.providerReference.length === 0) throw new Error('a succeeded refund needs the provider reference');
      return [
        {
          type: 'PaymentRefunded',
          schemaVersion: 1,
          data: {
            paymentId: state.id,
            invoiceId: state.invoiceId,
            refundId,
            amount: refund.amount,
            refundedAt: at,
            providerReference: outcome.providerReference,
            ...(refund.creditNoteId ? { creditNoteId: refund.creditNoteId } : {}),
          },
        },
      ];
    case 'declined':
      return [refundFailed(state.id, refundId, outcome.code, outcome.message, at)];
    case 'unreachable':
      return [refundFailed(state.id, refundId, GATEWAY_UNREACHABLE, outcome.message, at)];
  }
}

function refundFailed(paymentId: string, refundId: string, failureCode: string, failureMessage: string, failedAt: string): PaymentRefundFailed {
  return { type: 'PaymentRefundFailed', schemaVersion: 1, data: { paymentId, refundId, failureCode, failureMessage, failedAt } };
}

// ---------------------------------------------------------------- disputes

/** A dispute as the gateway reports it. */
export interface GatewayDispute {
  readonly disputeId: string;
  readonly amount: number;
  readonly reason: string;
  /** null while open; won or lost once closed. */
  readonly closed: 'won' | 'lost' | null;
}

/**
 * A dispute opened (closed: null) or closed. Idempotent by the dispute's
 * state: the same report again records nothing. Out-of-order safe: a close
 * reported before the opening records both (so the invoice's settlements
 * still add up), and the opening reported after the close records nothing.
 * A payment that has not succeeded cannot be disputed (the caller records
 * the success first when the gateway's report shows it).
 */
export function decideDispute(dispute: GatewayDispute, state: PaymentState, meta: CommandMetadata): Array<PaymentDisputed | PaymentDisputeClosed> {
  if (state.status === 'none') throw new Error('a dispute can only be recorded for an existing payment');
  const known = state.dispute?.id === dispute.disputeId ? state.dispute : undefined;
  if (!known && state.dispute) throw new ConflictError('payment-disputed', `payment ${state.id} is already disputed (${state.dispute.id})`);
  if (!known && state.status !== 'succeeded') {
    throw new ConflictError('payment-not-disputable', `payment ${state.id} is ${state.status}: only a succeeded payment can be disputed`);
  }
  const at = meta.now.toISOString();
  const events: Array<PaymentDisputed | PaymentDisputeClosed> = [];
  const amount = known?.amount ?? dispute.amount;
  if (!known) {
    events.push({
      type: 'PaymentDisputed',
      schemaVersion: 1,
      data: { paymentId: state.id, invoiceId: state.invoiceId, disputeId: dispute.disputeId, amount, reason: dispute.reason, disputedAt: at },
    });
  }
  if (dispute.closed !== null && (known?.status ?? 'open') === 'open') {
    events.push({
      type: 'PaymentDisputeClosed',
      schemaVersion: 1,
      data: { paymentId: state.id, invoiceId: state.invoiceId, disputeId: dispute.disputeId, amount, won: dispute.closed === 'won', closedAt: at },
    });
  }
  return events;
}

// ---------------------------------------------------------------- helpers

/** An integer number of minor units, at least 1 and within the service's range. */
function positiveAmount(value: unknown, pointer: string): bigint {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw ValidationError.at(pointer, 'must be an integer number of minor units (1 or more)');
  }
  if (value < 1) throw ValidationError.at(pointer, 'must be at least 1');
  return assertAmountInRange(BigInt(value), pointer);
}
