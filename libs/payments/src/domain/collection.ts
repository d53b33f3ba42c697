import { CommandMetadata, ConflictError, DomainEvent, Evolver, isDueBy, deciderOf } from '@billing/shared-kernel';
import { afterFailedCollection, AfterLastFailure } from './dunning';

/**
 * Collecting a subscription's booked invoice automatically (dunning): one
 * stream per invoice. It starts when the billing engine books the invoice of
 * a subscription with a payment method, and tries a payment at each due
 * time: a soft decline or an unreached gateway is retried on the
 * environment's schedule (days after the first failure), a hard decline is
 * not, and after the last failure the collection fails (invoice.payment_failed;
 * what follows is the environment's afterLastFailure, fixed at the start like
 * the schedule). It stops at once when its invoice has nothing left to pay
 * (a payment other than its own, a settlement, a credit note, the credit
 * balance, a void) or is marked uncollectible: a try that finds it so records
 * no failure, so nothing follows it. Each try is claimed on this stream before its payment is made, so no two
 * processes charge the same try.
 */
export const INVOICE_COLLECTION_STREAM_TYPE = 'invoice-collection';

export interface CollectionStartedData {
  readonly invoiceId: string;
  readonly subscriptionId: string;
  readonly provider: string;
  readonly token: string;
  /** The environment's retry schedule when the collection started. */
  readonly retryDays: readonly number[];
  /** The environment's afterLastFailure when the collection started; absent on events written before it existed: leave_open. */
  readonly afterLastFailure?: AfterLastFailure;
  readonly startedAt: string;
}
export type CollectionStarted = DomainEvent<'CollectionStarted', CollectionStartedData>;
/** A try is claimed: its payment, under this id, is about to be made. */
export type CollectionAttemptStarted = DomainEvent<
  'CollectionAttemptStarted',
  { readonly invoiceId: string; readonly attempt: number; readonly paymentId: string; readonly startedAt: string }
>;
export type CollectionAttemptFailed = DomainEvent<
  'CollectionAttemptFailed',
  {
    readonly invoiceId: string;
    readonly attempt: number;
    readonly paymentId: string;
    readonly failureCode: string | null;
    readonly nextAttemptAt: string | null;
    readonly failedAt: string;
  }
>;
export type CollectionSucceeded = DomainEvent<'CollectionSucceeded', { readonly invoiceId: string; readonly paymentId: string; readonly succeededAt: string }>;
/** Given up: a hard decline, or the schedule is exhausted. Announced as invoice.payment_failed. */
export type CollectionFailed = DomainEvent<
  'CollectionFailed',
  {
    readonly invoiceId: string;
    readonly subscriptionId: string;
    readonly attempts: number;
    readonly reason: 'hard-decline' | 'schedule-exhausted';
    readonly lastFailureCode: string | null;
    /** What follows (the collection's setting); absent on events written before it existed: leave_open. */
    readonly afterLastFailure?: AfterLastFailure;
    readonly failedAt: string;
  }
>;
/** Why a collection stopped before it succeeded or gave up: its invoice was voided, settled otherwise than by its tries, or marked uncollectible. */
export type CollectionStopReason = 'invoice-void' | 'invoice-settled' | 'invoice-uncollectible';
/** No further try is made (a claimed try whose payment was not made yet is not made either). */
export type CollectionStopped = DomainEvent<
  'CollectionStopped',
  { readonly invoiceId: string; readonly reason: CollectionStopReason; readonly stoppedAt: string }
>;
export type CollectionEvent =
  CollectionStarted | CollectionAttemptStarted | CollectionAttemptFailed | CollectionSucceeded | CollectionFailed | CollectionStopped;

export interface Collection {
  readonly status: 'due' | 'attempting' | 'succeeded' | 'failed' | 'stopped';
  readonly invoiceId: string;
  readonly subscriptionId: string;
  readonly provider: string;
  readonly token: string;
  readonly retryDays: readonly number[];
  readonly afterLastFailure: AfterLastFailure;
  /** Tries made or claimed so far. */
  readonly attempts: number;
  /** The claimed try's payment while attempting. */
  readonly paymentId: string | null;
  readonly nextAttemptAt: string | null;
  readonly firstFailureAt: string | null;
  readonly lastFailureCode: string | null;
  readonly startedAt: string;
  readonly updatedAt: string;
}
export type CollectionState = { readonly status: 'none' } | Collection;

export const collectionEvolver: Evolver<CollectionState, CollectionEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'CollectionStarted') {
      const { startedAt, afterLastFailure, ...data } = event.data;
      return {
        status: 'due',
        ...data,
        afterLastFailure: afterLastFailure ?? 'leave_open',
        attempts: 0,
        paymentId: null,
        nextAttemptAt: startedAt,
        firstFailureAt: null,
        lastFailureCode: null,
        startedAt,
        updatedAt: startedAt,
      };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'CollectionAttemptStarted':
        return {
          ...state,
          status: 'attempting',
          attempts: event.data.attempt,
          paymentId: event.data.paymentId,
          nextAttemptAt: null,
          updatedAt: event.data.startedAt,
        };
      case 'CollectionAttemptFailed':
        return {
          ...state,
          status: 'due',
          paymentId: null,
          nextAttemptAt: event.data.nextAttemptAt,
          firstFailureAt: state.firstFailureAt ?? event.data.failedAt,
          lastFailureCode: event.data.failureCode,
          updatedAt: event.data.failedAt,
        };
      case 'CollectionSucceeded':
        return { ...state, status: 'succeeded', paymentId: event.data.paymentId, nextAttemptAt: null, updatedAt: event.data.succeededAt };
      case 'CollectionFailed':
        return { ...state, status: 'failed', paymentId: null, nextAttemptAt: null, updatedAt: event.data.failedAt };
      case 'CollectionStopped':
        return { ...state, status: 'stopped', paymentId: null, nextAttemptAt: null, updatedAt: event.data.stoppedAt };
      default: {
        // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
        const _exhaustive: never = event;
        return state;
      }
    }
  },
};

export function decideStartCollection(command: Omit<CollectionStartedData, 'startedAt'>, state: CollectionState, meta: CommandMetadata): CollectionStarted[] {
  if (state.status !== 'none') return []; // an invoice is collected once
  return [{ type: 'CollectionStarted', schemaVersion: 1, data: { ...command, startedAt: meta.now.toISOString() } }];
}

/** Claims the next try when it is due; a try already claimed (another process) or not due is a conflict. */
export function decideStartAttempt(command: { paymentId: string }, state: CollectionState, meta: CommandMetadata): CollectionAttemptStarted[] {
  if (state.status !== 'due' || state.nextAttemptAt === null || !isDueBy(state.nextAttemptAt, meta.now)) {
    throw new ConflictError('collection-not-due', 'no collection try is due for this invoice');
  }
  return [
    {
      type: 'CollectionAttemptStarted',
      schemaVersion: 1,
      data: { invoiceId: state.invoiceId, attempt: state.attempts + 1, paymentId: command.paymentId, startedAt: meta.now.toISOString() },
    },
  ];
}

/** What the claimed try's payment came to (a still pending payment records nothing: asked again later). */
export type AttemptOutcome =
  | { readonly status: 'succeeded'; readonly paymentId: string }
  | { readonly status: 'failed'; readonly paymentId: string; readonly failureCode: string | null; readonly retryable: boolean };

/**
 * Records the claimed try's outcome. A failed try whose invoice is no longer
 * to be collected (settled by other means, voided or marked meanwhile, which is
 * often why the payment was refused) stops the collection instead: it is no
 * decline, so no failure is recorded and nothing follows it.
 */
export function decideRecordAttempt(
  outcome: AttemptOutcome,
  state: CollectionState,
  meta: CommandMetadata,
  invoice: CollectedInvoice | null,
): Array<CollectionAttemptFailed | CollectionSucceeded | CollectionFailed | CollectionStopped> {
  if (state.status !== 'attempting' || state.paymentId !== outcome.paymentId) return [];
  const at = meta.now.toISOString();
  if (outcome.status === 'succeeded')
    return [{ type: 'CollectionSucceeded', schemaVersion: 1, data: { invoiceId: state.invoiceId, paymentId: outcome.paymentId, succeededAt: at } }];
  const stop = decideStopCollection(invoice, state, meta);
  if (stop.length > 0) return stop;
  const firstFailureAt = state.firstFailureAt === null ? meta.now : new Date(state.firstFailureAt);
  const next = afterFailedCollection(state.retryDays, { attempt: state.attempts, retryable: outcome.retryable }, firstFailureAt);
  const failed: CollectionAttemptFailed = {
    type: 'CollectionAttemptFailed',
    schemaVersion: 1,
    data: {
      invoiceId: state.invoiceId,
      attempt: state.attempts,
      paymentId: outcome.paymentId,
      failureCode: outcome.failureCode,
      nextAttemptAt: next.kind === 'retry' ? next.at.toISOString() : null,
      failedAt: at,
    },
  };
  if (next.kind === 'retry') return [failed];
  return [
    failed,
    {
      type: 'CollectionFailed',
      schemaVersion: 1,
      data: {
        invoiceId: state.invoiceId,
        subscriptionId: state.subscriptionId,
        attempts: state.attempts,
        reason: next.reason,
        lastFailureCode: outcome.failureCode,
        afterLastFailure: state.afterLastFailure,
        failedAt: at,
      },
    },
  ];
}

/** What a collection reads of its invoice (invoicing's state): whether it is void or marked, what is left to pay, and which payments settled it. */
export interface CollectedInvoice {
  readonly status: string;
  readonly uncollectible?: boolean;
  readonly totalInclVat: number;
  readonly settledAmount: number;
  readonly settlements: readonly { readonly paymentId: string | null }[];
}

/** Void, or booked with nothing left to pay (paid, settled, credited, or over-settled): what follows a failed collection is moot too. */
export function hasNothingToPay(invoice: CollectedInvoice): boolean {
  return invoice.status === 'void' || (invoice.status === 'booked' && invoice.totalInclVat - invoice.settledAmount <= 0);
}

/**
 * Why an invoice is no longer collected, or null while it is. `ownPaymentId`
 * is the collection's claimed try: when its own payment settled the invoice,
 * that is the try's success (recorded from the payment), not a stop.
 */
export function collectionStopReason(invoice: CollectedInvoice, ownPaymentId: string | null = null): CollectionStopReason | null {
  if (invoice.status === 'void') return 'invoice-void';
  if (hasNothingToPay(invoice)) {
    return ownPaymentId !== null && invoice.settlements.some((settlement) => settlement.paymentId === ownPaymentId) ? null : 'invoice-settled';
  }
  return invoice.uncollectible === true ? 'invoice-uncollectible' : null;
}

/**
 * Stops a collection that still has tries to make when its invoice is no longer collected (collectionStopReason);
 * one that succeeded, gave up or stopped (or never started) is left as it is, and so is one whose invoice does not
 * exist (null): its tries are refused, and fail.
 */
export function decideStopCollection(invoice: CollectedInvoice | null, state: CollectionState, meta: CommandMetadata): CollectionStopped[] {
  if (invoice === null || (state.status !== 'due' && state.status !== 'attempting')) return [];
  const reason = collectionStopReason(invoice, state.paymentId);
  if (reason === null) return [];
  return [{ type: 'CollectionStopped', schemaVersion: 1, data: { invoiceId: state.invoiceId, reason, stoppedAt: meta.now.toISOString() } }];
}

/** The Collection aggregate as one value: what it folds (collectionEvolver) and what each of its commands decides. */
export const collectionDecider = deciderOf(collectionEvolver, {
  StartCollection: decideStartCollection,
  StartAttempt: decideStartAttempt,
  StopCollection: decideStopCollection,
});
