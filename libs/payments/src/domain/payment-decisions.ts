import { assertAmountInRange, CommandMetadata, ConflictError, NotFoundError, ValidationError, deciderOf } from '@billing/shared-kernel';
import { isOpenPayment, paymentEvolver, PaymentState, pendingRefunds, refundableAmount } from './payment';
import { CreatePayment, GatewayDispute, PaymentOutcome, RefundOutcome, RefundPayment } from './payment-commands';
import {
  GATEWAY_UNREACHABLE,
  PaymentActionRequired,
  PaymentCreated,
  PaymentDisputeClosed,
  PaymentDisputed,
  PaymentFailed,
  PaymentProcessing,
  PaymentRefunded,
  PaymentRefundFailed,
  PaymentRefundRequested,
  PaymentSucceeded,
} from './payment-events';
import { assertKnownProvider, CUSTOMER_PROVIDERS } from './provider';

// ---------------------------------------------------------------- create

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

/** The Payment aggregate as one value: what it folds (paymentEvolver) and what each of its commands decides. */
export const paymentDecider = deciderOf(paymentEvolver, {
  CreatePayment: decideCreatePayment,
  RecordOutcome: decideRecordOutcome,
  Refund: decideRefund,
  Dispute: decideDispute,
});
