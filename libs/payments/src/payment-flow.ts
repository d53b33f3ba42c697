import { Injectable } from '@nestjs/common';
import { CommandContext, CommandPath, CommandSession, ConflictPolicy, outsideUnitOfWork, Written } from '@billing/event-store';
import { PaymentTokenVault } from '@billing/platform';
import { foldEvents, isUuid } from '@billing/shared-kernel';
import { invoiceEvolver, invoicePaymentLock, InvoiceState, invoiceStream, toInvoiceView } from '@billing/invoicing';
import {
  decideCloseInvoicePayment,
  decideCreatePayment,
  decideDispute,
  GatewayDispute,
  InvoiceFacts,
  isOpenPayment,
  decideOpenInvoicePayment,
  decideRecordOutcome,
  decideRecordRefundOutcome,
  decideRefund,
  InvoicePayments,
  invoicePaymentsEvolver,
  KnownProvider,
  Payment,
  PaymentEvent,
  paymentEvolver,
  PaymentOutcome,
  PaymentState,
  PaymentProviderState,
  paymentProviderEvolver,
  Refund,
  RefundOutcome,
  refundableOfInvoice,
  takenNotSettled,
} from './domain';
import { CredentialVault } from './credentials/credential-vault';
import { ChargeRequest, GatewayOutcome, GatewayRefundOutcome, RefundLookupOutcome, RefundRequest } from './gateway/payment-gateway';
import { PaymentGateways } from './gateway/gateway-registry';
import { invoicePaymentsStream, paymentStream, providerStream } from './streams';

export interface PaymentRequest {
  readonly invoiceId: string;
  readonly amount?: unknown;
  readonly provider: unknown;
  readonly token: string;
  /** 1 for a payment asked for over the API; n for the n-th automatic collection try. */
  readonly attempt?: number;
  /** Chosen by a caller that claimed it first (a collection try); absent: a new id. */
  readonly paymentId?: string;
  /** Made without the customer present (a collection try): the gateway must not ask them to act. */
  readonly offSession?: boolean;
  /** The page the customer pays on (the hosted invoice page): where a gateway sends them back after 3-D Secure. */
  readonly returnUrl?: string;
  /** Asked for by the customer on a page of ours: only providers that take their money (CUSTOMER_PROVIDERS). */
  readonly byCustomer?: boolean;
}

/**
 * The life of a payment, in three steps that each commit on their own (never
 * inside a caller's transaction: a charge must never be made for a payment
 * that is not recorded):
 * 1. record it `pending` and open its invoice (a second payment of the invoice
 *    while one is pending is refused: the invoice-payments stream's version);
 * 2. ask the provider's gateway to charge it, the payment id being the
 *    gateway's idempotency reference;
 * 3. record the outcome and close the invoice. An unknown outcome (a timeout,
 *    or a crash before step 3) stays pending: the resolver asks the gateway
 *    again (lookup, never a second charge).
 *
 * A refund goes the same way: reserved on the payment (PaymentRefundRequested,
 * so concurrent refunds never exceed it), asked of the gateway under the
 * refund id, its outcome recorded (PaymentRefunded, or PaymentRefundFailed
 * releasing the reservation); an unknown outcome stays pending for the
 * resolver's lookup.
 */
/**
 * An outcome (or a refund's) that another process (the resolver, a twin
 * request) recorded first is decided again on a fresh load: the decider then
 * records nothing and the answer is the payment as recorded (the gateway's
 * answer is the same).
 */
const OUTCOME_CONFLICTS: ConflictPolicy = { retries: 2 };
/** A payment recorded while another closed on the same invoice: decided again, on what that one took. */
const RECORD_CONFLICTS: ConflictPolicy = { retries: 2 };

/**
 * What a payment is checked against: the invoice as its events say (null: there is no such invoice), its total due
 * less what its payments took that is not settled on it yet. The invoice must be read before its payments: a
 * settlement it shows then implies its payment's close is seen too.
 */
function invoiceFacts(invoice: InvoiceState, payments: InvoicePayments): InvoiceFacts | null {
  if (invoice.status === 'none') return null;
  const view = toInvoiceView(invoice);
  const totalDue =
    view.totalDue -
    takenNotSettled(
      payments,
      invoice.settlements.map((settlement) => settlement.reference),
    );
  return { invoiceId: view.id, status: view.status, type: view.type, currency: view.currency, customerId: view.customer.id, totalDue };
}

@Injectable()
export class PaymentFlow {
  constructor(
    private readonly commands: CommandPath,
    private readonly gateways: PaymentGateways,
    private readonly vault: CredentialVault,
    private readonly tokens: PaymentTokenVault,
  ) {}

  pay(environmentId: string, request: PaymentRequest, context: CommandContext): Promise<Written<Payment>> {
    return outsideUnitOfWork(async () => {
      const paymentId = request.paymentId ?? context.meta.newId();
      // A chosen id may name a payment already recorded (a retry after a lost answer): it is not recorded again,
      // and a pending one is charged again under the same reference, which the gateway answers without charging twice.
      const loaded = await this.commands.load(paymentStream(environmentId, paymentId), paymentEvolver);
      if (loaded.state.status !== 'none' && !isOpenPayment(loaded.state)) return { id: paymentId, version: loaded.version, state: loaded.state };
      const recorded = isOpenPayment(loaded.state)
        ? { id: paymentId, version: loaded.version, state: loaded.state }
        : await this.recordOnce(environmentId, paymentId, request, context);
      if (!isOpenPayment(recorded.state)) return recorded;
      const outcome = await this.charge(
        environmentId,
        recorded.state,
        { token: request.token, offSession: request.offSession === true, returnUrl: request.returnUrl ?? null },
        'charge',
      );
      return (await this.settle(environmentId, paymentId, outcome, context)) ?? recorded;
    });
  }

  /**
   * For a payment still open (pending, requires_action): what the gateway says became of its charge. A charge the
   * gateway never saw (the process died before the call) is made now, under the same reference, without the customer
   * present: it was never declined, so it is neither reported nor retried later as one. Never a second charge: the
   * gateway answers a reference it holds with its first outcome.
   */
  async resolve(environmentId: string, payment: Payment, context: CommandContext): Promise<void> {
    const found = await this.charge(environmentId, payment, { token: '', offSession: false, returnUrl: null }, 'lookup');
    const token = found.kind === 'not_found' && payment.method ? payment.method : null;
    const outcome = token === null ? found : await this.charge(environmentId, payment, { token, offSession: true, returnUrl: null }, 'charge');
    await this.settle(environmentId, payment.id, outcome, context);
  }

  /**
   * An outcome a gateway pushed (its webhook): decided exactly like a lookup's
   * answer, so a repeated or late event records nothing.
   */
  recordPushedOutcome(environmentId: string, paymentId: string, outcome: PaymentOutcome, context: CommandContext): Promise<Written<Payment> | null> {
    return outsideUnitOfWork(async () => (outcome.kind === 'unknown' ? null : this.recordOutcome(environmentId, paymentId, outcome, context)));
  }

  /** A refund's outcome a gateway pushed: decided like a refund lookup's answer. */
  recordPushedRefundOutcome(
    environmentId: string,
    paymentId: string,
    refundId: string,
    outcome: GatewayRefundOutcome,
    context: CommandContext,
  ): Promise<Written<Payment> | null> {
    return outsideUnitOfWork(() => this.recordRefundOutcome(environmentId, paymentId, refundId, outcome, context));
  }

  /** A dispute opened or closed at the gateway (decideDispute: idempotent, out-of-order safe). */
  recordDispute(environmentId: string, paymentId: string, dispute: GatewayDispute, context: CommandContext): Promise<Written<Payment>> {
    return outsideUnitOfWork(async () => {
      const { state, version } = await this.commands.handle(
        paymentStream(environmentId, paymentId),
        paymentEvolver,
        (current) => decideDispute(dispute, current, context.meta),
        context,
        { conflicts: OUTCOME_CONFLICTS },
      );
      return { id: paymentId, version, state: state as Payment };
    });
  }

  refund(
    environmentId: string,
    paymentId: string,
    request: { refundId: string; amount: unknown; creditNoteId?: string },
    context: CommandContext,
  ): Promise<Written<Payment>> {
    return outsideUnitOfWork(async () => {
      const reserved = await this.reserveRefund(environmentId, paymentId, request, context);
      const { refundId } = request;
      const payment = reserved.state;
      // A retried request finds its refund reserved already, and maybe decided: a pending one is asked again under the same reference.
      const refund = payment.refunds.find((candidate) => candidate.id === refundId)!;
      if (refund.status !== 'pending') return { id: paymentId, version: reserved.version, state: payment };
      const outcome = await this.askRefund(environmentId, payment, refund, 'refund');
      return (
        (await this.recordRefundOutcome(environmentId, paymentId, refundId, outcome, context)) ?? { id: paymentId, version: reserved.version, state: payment }
      );
    });
  }

  /**
   * Reserves the refund on the payment. A direct one (not a credit note's) is decided under its invoice's payment lock,
   * which a credit note's issue takes too, against what the invoice's credit notes are still to refund: the two never
   * promise the same money twice (a credit note's own refunds were promised when it was issued).
   */
  private async reserveRefund(
    environmentId: string,
    paymentId: string,
    { refundId, amount, creditNoteId }: { refundId: string; amount: unknown; creditNoteId?: string },
    context: CommandContext,
  ): Promise<Written<Payment>> {
    const stream = paymentStream(environmentId, paymentId);
    // Its invoice, to lock before the payment is read (a payment's invoice never changes).
    const { state: found } = await this.commands.load(stream, paymentEvolver);
    const invoiceId = creditNoteId === undefined && found.status !== 'none' ? found.invoiceId : null;
    return this.commands.run(context, { retries: 1 }, async (session) => {
      if (invoiceId !== null) {
        const lock = invoicePaymentLock(environmentId, invoiceId);
        await session.query(lock.sql, lock.parameters);
      }
      const loaded = await session.load(stream, paymentEvolver);
      const refundableOfInvoice =
        invoiceId !== null && loaded.state.status === 'succeeded' ? await this.refundableOfInvoice(session, environmentId, loaded.state) : undefined;
      const events = decideRefund({ refundId, amount, paymentId, creditNoteId, refundableOfInvoice }, loaded.state, context.meta);
      const state = foldEvents(paymentEvolver, events, loaded.state) as Payment;
      return { id: paymentId, version: events.length === 0 ? loaded.version : session.append(stream, events), state };
    });
  }

  /** refundableOfInvoice for a refund of `payment`, read in the session (under the invoice's payment lock). */
  private async refundableOfInvoice(session: CommandSession, environmentId: string, payment: Payment): Promise<number | undefined> {
    const invoice = (await session.load(invoiceStream(environmentId, payment.invoiceId), invoiceEvolver)).state;
    if (invoice.status === 'none') return undefined;
    const invoicePayments = (await session.load(invoicePaymentsStream(environmentId, payment.invoiceId), invoicePaymentsEvolver)).state;
    const payments: Payment[] = [payment];
    for (const otherId of invoicePayments.paymentIds) {
      if (otherId === payment.id) continue;
      const other = (await session.load(paymentStream(environmentId, otherId), paymentEvolver)).state;
      if (other.status !== 'none') payments.push(other);
    }
    const facts = {
      paidThroughPayments: invoice.paidThroughPayments,
      creditNoteRefundsOutstanding: invoice.creditNoteRefundsOutstanding,
      settlementReferences: invoice.settlements.map((settlement) => settlement.reference),
    };
    return refundableOfInvoice(facts, invoicePayments, payments);
  }

  /** For a refund still pending: what the gateway says became of it. Never refunds again. */
  async resolveRefund(environmentId: string, payment: Payment, refund: Refund, context: CommandContext): Promise<void> {
    const outcome = await this.askRefund(environmentId, payment, refund, 'lookup');
    await this.recordRefundOutcome(environmentId, payment.id, refund.id, outcome, context);
  }

  /** Records the payment; when a twin with the same chosen id recorded it first, that payment (pending or decided). */
  private async recordOnce(environmentId: string, paymentId: string, request: PaymentRequest, context: CommandContext): Promise<Written<Payment>> {
    try {
      return await this.record(environmentId, paymentId, request, context);
    } catch (error) {
      // A twin got there first: the stream is taken, or the invoice already has this very payment pending.
      if (request.paymentId === undefined) throw error;
      const twin = await this.commands.load(paymentStream(environmentId, paymentId), paymentEvolver);
      if (twin.state.status === 'none') throw error;
      return { id: paymentId, version: twin.version, state: twin.state };
    }
  }

  private async record(environmentId: string, paymentId: string, request: PaymentRequest, context: CommandContext): Promise<Written<Payment>> {
    // Every path that pays (the API, the hosted page, a collection try) records here: the one guard against a second
    // payment of an invoice while one is under way. A close committed meanwhile decides again on what it took.
    return this.commands.run(context, RECORD_CONFLICTS, async (session) => {
      // The invoice as its stream says, read under its payment lock: a void committed meanwhile refuses the payment.
      let invoice: InvoiceFacts | null = null;
      let lock: { state: InvoicePayments } | null = null;
      if (isUuid(request.invoiceId)) {
        const paymentLock = invoicePaymentLock(environmentId, request.invoiceId);
        await session.query(paymentLock.sql, paymentLock.parameters);
        const invoiceState = (await session.load(invoiceStream(environmentId, request.invoiceId), invoiceEvolver)).state;
        lock = await session.load(invoicePaymentsStream(environmentId, request.invoiceId), invoicePaymentsEvolver);
        invoice = invoiceFacts(invoiceState, lock.state);
      }
      // Read on the transaction's own connection: a second one while holding this one could starve the pool.
      const provider =
        typeof request.provider === 'string'
          ? (await session.load(providerStream(environmentId, request.provider as KnownProvider), paymentProviderEvolver)).state
          : null;
      const events = decideCreatePayment(
        {
          paymentId,
          invoiceId: request.invoiceId,
          invoice,
          requestedAmount: request.amount,
          provider: request.provider,
          providerEnabled: provider?.status === 'enabled',
          pendingPaymentId: lock?.state.pendingPaymentId ?? null,
          attempt: request.attempt,
          byCustomer: request.byCustomer,
          method: typeof request.provider === 'string' ? this.tokens.seal(environmentId, request.token) : undefined,
        },
        paymentEvolver.initialState(),
        context.meta,
      );
      const opened = decideOpenInvoicePayment({ invoiceId: invoice!.invoiceId, paymentId }, lock!.state, context.meta);
      const version = session.append(paymentStream(environmentId, paymentId), events);
      session.append(invoicePaymentsStream(environmentId, invoice!.invoiceId), opened);
      return { id: paymentId, version, state: foldEvents(paymentEvolver, events) as Payment };
    });
  }

  /** The gateway's answer; the provider's credentials are decrypted for this call only. */
  private async charge(
    environmentId: string,
    payment: Payment,
    method: { token: string; offSession: boolean; returnUrl: string | null },
    call: 'charge' | 'lookup',
  ): Promise<GatewayOutcome | { kind: 'not_found'; message: string }> {
    const gateway = this.gateways.get(payment.provider);
    const request: ChargeRequest = {
      reference: payment.id,
      amount: payment.amount,
      currency: payment.currency,
      // A stored method's token (a subscription's, a customer's) is sealed at rest: opened for this call only.
      token: this.tokens.open(environmentId, method.token),
      credentials: await this.credentials(environmentId, payment.provider),
      environmentId,
      invoiceId: payment.invoiceId,
      offSession: method.offSession,
      returnUrl: method.returnUrl,
      providerReference: payment.providerReference,
    };
    try {
      return call === 'charge' ? await gateway.charge(request) : await gateway.lookup(request);
    } catch {
      // Whatever the adapter threw, the charge may or may not have happened: the resolver asks again.
      return { kind: 'unknown', message: 'the gateway call failed' };
    }
  }

  /** The gateway's answer to a refund or its lookup; like a charge, a call that threw may or may not have refunded. */
  private async askRefund(
    environmentId: string,
    payment: Payment,
    refund: Refund,
    call: 'refund' | 'lookup',
  ): Promise<GatewayRefundOutcome | RefundLookupOutcome> {
    const gateway = this.gateways.get(payment.provider);
    const request: RefundRequest = {
      reference: refund.id,
      chargeReference: payment.id,
      chargeProviderReference: payment.providerReference,
      amount: refund.amount,
      currency: payment.currency,
      credentials: await this.credentials(environmentId, payment.provider),
      environmentId,
    };
    try {
      return call === 'refund' ? await gateway.refund(request) : await gateway.lookupRefund(request);
    } catch {
      return { kind: 'unknown', message: 'the gateway call failed' };
    }
  }

  /** Records a known refund outcome (a twin or the resolver may have recorded it first: the same answer); null while unknown. */
  private async recordRefundOutcome(
    environmentId: string,
    paymentId: string,
    refundId: string,
    outcome: GatewayRefundOutcome | RefundLookupOutcome,
    context: CommandContext,
  ): Promise<Written<Payment> | null> {
    // Pending at the gateway: the refund stays pending until its lookup or the gateway's event tells the end.
    if (outcome.kind === 'unknown' || outcome.kind === 'pending') return null;
    // A lookup that finds no refund: none was made; the refund failed and its amount is refundable again.
    const known: RefundOutcome = outcome.kind === 'not_found' ? { kind: 'unreachable', message: outcome.message } : outcome;
    const decide = (current: PaymentState) => decideRecordRefundOutcome(refundId, known, current, context.meta);
    const { state, version } = await this.commands.handle(paymentStream(environmentId, paymentId), paymentEvolver, decide, context, {
      conflicts: OUTCOME_CONFLICTS,
    });
    return { id: paymentId, version, state: state as Payment };
  }

  private async credentials(environmentId: string, providerName: KnownProvider): Promise<object | null> {
    const provider = await this.providerState(providerName, environmentId);
    const encrypted = provider.status === 'none' ? null : provider.credentials;
    return encrypted ? this.vault.decrypt(environmentId, providerName, encrypted) : null;
  }

  /** Records a known outcome and closes the invoice in one transaction; null when the outcome is still unknown. */
  private async settle(
    environmentId: string,
    paymentId: string,
    outcome: GatewayOutcome | { kind: 'not_found'; message: string },
    context: CommandContext,
  ): Promise<Written<Payment> | null> {
    if (outcome.kind === 'unknown') return null;
    // A lookup that finds no charge of a payment whose token was not kept (recorded before it was): it failed without charging.
    const known: PaymentOutcome = outcome.kind === 'not_found' ? { kind: 'unreachable', message: outcome.message } : outcome;
    return this.recordOutcome(environmentId, paymentId, known, context);
  }

  private recordOutcome(environmentId: string, paymentId: string, known: PaymentOutcome, context: CommandContext): Promise<Written<Payment>> {
    return this.commands.run(context, OUTCOME_CONFLICTS, async (session) => {
      const stream = paymentStream(environmentId, paymentId);
      const loaded = await session.load(stream, paymentEvolver);
      const decided: PaymentEvent[] = decideRecordOutcome(known, loaded.state, context.meta);
      const payment = foldEvents(paymentEvolver, decided, loaded.state) as Payment;
      // Only a final outcome frees the invoice for another payment: processing and requires_action keep it held.
      if (decided.length === 0 || isOpenPayment(payment)) {
        return { id: paymentId, version: decided.length === 0 ? loaded.version : session.append(stream, decided), state: payment };
      }
      const lockStream = invoicePaymentsStream(environmentId, payment.invoiceId);
      const lock = await session.load(lockStream, invoicePaymentsEvolver);
      const version = session.append(stream, decided);
      const taken = payment.status === 'succeeded' ? payment.amount : 0;
      session.append(lockStream, decideCloseInvoicePayment({ invoiceId: payment.invoiceId, paymentId, taken }, lock.state, context.meta));
      return { id: paymentId, version, state: payment };
    });
  }

  private async providerState(name: string, environmentId: string): Promise<PaymentProviderState> {
    return (await this.commands.load(providerStream(environmentId, name as KnownProvider), paymentProviderEvolver)).state;
  }
}
