import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { DataSource } from 'typeorm';
import { CommandContext, CommandPath, queryRows } from '@billing/event-store';
import { EnvironmentClock, HttpProblem } from '@billing/platform';
import { DomainError, isUuid } from '@billing/shared-kernel';
import { isOpenPayment, Payment, paymentEvolver, paymentProviderEvolver, pendingRefunds } from '../domain';
import { CredentialVault } from '../credentials/credential-vault';
import { StripeGateway, stripeCredentials } from '../gateway/stripe/stripe-gateway';
import { stripeEventShapeError } from './stripe-event-shape';
import { disputeStateOf } from '../gateway/stripe/stripe-outcomes';
import { PaymentFlow } from '../payment-flow';
import { paymentStream, providerStream } from '../streams';

/** How old a signed event may be (Stripe's own default): older ones are refused as replays. */
export const STRIPE_EVENT_TOLERANCE_SECONDS = 300;

const HANDLED = new Set([
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.processing',
  'payment_intent.requires_action',
  'charge.refunded',
  'refund.updated',
  'charge.dispute.created',
  'charge.dispute.closed',
]);

/** What the route answers Stripe (any 2xx stops its retries). */
export interface StripeEventReceipt {
  readonly received: true;
  /** True when this event was handled before (a redelivery): nothing was done again. */
  readonly duplicate: boolean;
}

/**
 * Stripe's events for one environment, posted to
 * `/gateway-webhooks/stripe/<environment id>`.
 *
 * Verified first with the client's `webhooks.constructEvent` against that
 * environment's webhook secret (decrypted for this call only) and a 5-minute
 * tolerance: an unsigned, altered, old or other environment's event is a
 * 400 and nothing is recorded; so is a signed body that is not an event's
 * shape (no id, no data.object, text Postgres cannot store).
 *
 * Then the event moves the payment by the same decisions as a lookup, never
 * by the event's snapshot alone: a PaymentIntent event looks the intent up
 * (its state now), a refund event looks up the payment's pending refunds,
 * and disputes go through decideDispute (which tells a repeated or reordered
 * report). So repeated and out-of-order events change nothing twice. An
 * event id handled already answers at once (stripe_webhook_events); the id
 * is recorded once the event was handled, so one that failed half-way is
 * handled again when Stripe retries it.
 */
@Injectable()
export class StripeEvents {
  private readonly logger = new Logger('StripeEvents');

  constructor(
    private readonly commands: CommandPath,
    private readonly vault: CredentialVault,
    private readonly gateway: StripeGateway,
    private readonly flow: PaymentFlow,
    private readonly environmentClock: EnvironmentClock,
    private readonly dataSource: DataSource,
  ) {}

  async receive(environmentId: string, rawBody: unknown, signature: string | undefined): Promise<StripeEventReceipt> {
    const event = await this.verified(environmentId, rawBody, signature);
    if (await this.seen(environmentId, event.id)) return { received: true, duplicate: true };
    if (HANDLED.has(event.type)) await this.handle(environmentId, event, await this.context(environmentId, event));
    await this.dataSource.query(
      'insert into stripe_webhook_events (environment_id, event_id, type) values ($1, $2, $3) on conflict (environment_id, event_id) do nothing',
      [environmentId, event.id, event.type],
    );
    return { received: true, duplicate: false };
  }

  private async verified(environmentId: string, rawBody: unknown, signature: string | undefined): Promise<Stripe.Event> {
    // One answer for every refusal: which part failed (no provider, no signature, a bad one) is not told.
    const refused = () => new HttpProblem(400, 'invalid-gateway-event', 'The event is not signed with this environment’s Stripe webhook secret.');
    if (!isUuid(environmentId) || typeof rawBody !== 'string' || typeof signature !== 'string') throw refused();
    const provider = (await this.commands.load(providerStream(environmentId, 'stripe'), paymentProviderEvolver)).state;
    // A disabled provider still hears about the payments it made: they may still be resolving.
    if (provider.status === 'none' || provider.credentials === null) throw refused();
    const { webhookSecret } = stripeCredentials(this.vault.decrypt(environmentId, 'stripe', provider.credentials));
    let event: unknown;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature, webhookSecret, STRIPE_EVENT_TOLERANCE_SECONDS);
    } catch {
      throw refused();
    }
    const malformed = stripeEventShapeError(event);
    if (malformed) throw new HttpProblem(400, 'invalid-gateway-event', 'The signed body is not a Stripe event this route can handle.', [malformed]);
    return event as Stripe.Event;
  }

  private async handle(environmentId: string, event: Stripe.Event, context: CommandContext): Promise<void> {
    const object = event.data.object as unknown as Record<string, unknown>;
    if (event.type.startsWith('payment_intent.')) {
      const intent = object as unknown as Stripe.PaymentIntent;
      const payment = await this.paymentOf(environmentId, intent.metadata, intent.id);
      if (payment && isOpenPayment(payment)) await this.flow.resolve(environmentId, payment, context);
      return;
    }
    if (event.type === 'charge.refunded' || event.type === 'refund.updated') {
      const payment = await this.paymentOf(environmentId, object.metadata as Stripe.Metadata | undefined, idOf(object.payment_intent));
      if (!payment) return;
      for (const refund of pendingRefunds(payment)) await this.flow.resolveRefund(environmentId, payment, refund, context);
      return;
    }
    const dispute = object as unknown as Stripe.Dispute;
    let payment = await this.paymentOf(environmentId, undefined, idOf(dispute.payment_intent));
    if (!payment) return;
    // A dispute proves the charge went through: a payment still open learns so first, by its lookup.
    if (isOpenPayment(payment)) {
      await this.flow.resolve(environmentId, payment, context);
      payment = (await this.load(environmentId, payment.id))!;
    }
    try {
      await this.flow.recordDispute(
        environmentId,
        payment.id,
        { disputeId: dispute.id, amount: dispute.amount, reason: dispute.reason, closed: disputeStateOf(dispute.status) },
        context,
      );
    } catch (error) {
      // A rule refuses it (the payment never succeeded here, a second dispute): logged; Stripe need not retry.
      if (!(error instanceof DomainError)) throw error;
      this.logger.warn({ msg: 'a Stripe dispute could not be recorded', environmentId, paymentId: payment.id, disputeId: dispute.id, error: error.message });
    }
  }

  /**
   * The payment an object of the event belongs to: named by its metadata
   * (our intents and refunds carry paymentId and environment), else found by
   * its PaymentIntent id. An object of another environment, or of no payment
   * made here, is ignored.
   */
  private async paymentOf(environmentId: string, metadata: Stripe.Metadata | null | undefined, intentId: string | null): Promise<Payment | null> {
    if (metadata?.environment !== undefined && metadata.environment !== environmentId) return null;
    const reference =
      (typeof metadata?.paymentId === 'string' && isUuid(metadata.paymentId) ? metadata.paymentId : null) ??
      (intentId === null ? null : await this.gateway.referenceOfIntent(environmentId, intentId));
    if (reference === null) return null;
    const payment = await this.load(environmentId, reference);
    if (!payment || payment.provider !== 'stripe') return null;
    if (intentId !== null) await this.gateway.rememberIntent(environmentId, reference, intentId);
    return payment;
  }

  private async load(environmentId: string, paymentId: string): Promise<Payment | null> {
    const { state } = await this.commands.load(paymentStream(environmentId, paymentId), paymentEvolver);
    return state.status === 'none' ? null : state;
  }

  private async seen(environmentId: string, eventId: string): Promise<boolean> {
    const rows = await queryRows(this.dataSource.manager, 'select 1 from stripe_webhook_events where environment_id = $1 and event_id = $2', [
      environmentId,
      eventId,
    ]);
    return rows.length > 0;
  }

  private async context(environmentId: string, event: Stripe.Event): Promise<CommandContext> {
    return {
      // Recorded in the environment's time, like everything it writes.
      meta: { now: await this.environmentClock.now(environmentId), newId: randomUUID },
      metadata: { actor: 'system:stripe-webhook', requestId: event.id, correlationId: randomUUID(), causationId: null },
    };
  }
}

function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string') return (value as { id: string }).id;
  return null;
}
