import Stripe from 'stripe';
import { EntityManager } from 'typeorm';
import { outsideUnitOfWork, queryRows } from '@billing/event-store';
import { StripeClientConfig } from '@billing/platform';
import { StripeCredentials } from '../../domain';
import { ChargeRequest, GatewayOutcome, GatewayRefundOutcome, LookupOutcome, PaymentGateway, RefundLookupOutcome, RefundRequest } from '../payment-gateway';
import { outcomeOfError, outcomeOfIntent, outcomeOfRefund, refundOutcomeOfError, StripeErrorFacts } from './stripe-outcomes';

/**
 * The API version every request names (Stripe-Version): the one this client
 * release is typed for, so the shapes it parses are the shapes it gets.
 */
export const STRIPE_API_VERSION = Stripe.API_VERSION;
/** The client's own retries of a failed connection or a 5xx, always under the same Idempotency-Key. */
const MAX_NETWORK_RETRIES = 2;

type IntentParams = Stripe.PaymentIntentCreateParams;

/**
 * Provider `stripe`, through Stripe's official client.
 *
 * A charge creates and confirms a PaymentIntent with our payment id as its
 * Idempotency-Key, so the same reference never charges twice: Stripe answers
 * a repeated key with the stored result. The exact request is written to
 * stripe_payment_intents before it is sent (outside the caller's
 * transaction, like a remote record), so a lookup can repeat it byte for
 * byte, and the intent's id is kept once Stripe answers.
 *
 * A lookup retrieves the intent by its id (the payment's providerReference,
 * or the one kept here); when the create never answered, it repeats the
 * create with the same key and request (Stripe replays the result if the
 * first one was carried out, or carries it out now: once either way), then
 * retrieves the intent when the replayed answer was not final, since a
 * replay shows the intent as it was then. A reference never sent is
 * not_found.
 *
 * Refunds: refunds.create on the payment's intent with our refund id as
 * Idempotency-Key; a refund lookup repeats that create (same key, same
 * request: the stored refund) and retrieves the refund for its state now.
 *
 * What answers mean: stripe-outcomes.ts.
 */
export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe';

  /** `manager`: the DataSource's manager (not a transaction's). */
  constructor(
    private readonly manager: EntityManager,
    private readonly config: StripeClientConfig,
  ) {}

  /** A client for the environment's key, pointed at STRIPE_API_BASE when set. */
  client(credentials: object | null): Stripe {
    const { secretKey } = stripeCredentials(credentials);
    return new Stripe(secretKey, {
      apiVersion: STRIPE_API_VERSION,
      maxNetworkRetries: MAX_NETWORK_RETRIES,
      timeout: this.config.timeoutMs,
      telemetry: false,
      ...(this.config.apiBase ?? {}),
    });
  }

  charge(request: ChargeRequest): Promise<GatewayOutcome> {
    return outsideUnitOfWork(async () => {
      const recorded = await this.recorded(request.environmentId, request.reference);
      if (recorded) return this.create(request, recorded.params);
      const method = await this.paymentMethodOf(request);
      if (method.kind !== 'found') return method.outcome;
      return this.create(request, await this.recordRequest(request, method.paymentMethod));
    });
  }

  lookup(request: ChargeRequest): Promise<LookupOutcome> {
    return outsideUnitOfWork(async () => {
      const recorded = await this.recorded(request.environmentId, request.reference);
      const intentId = request.providerReference ?? recorded?.intentId ?? null;
      if (intentId !== null) return this.retrieve(request, intentId);
      if (!recorded) return { kind: 'not_found', message: `Stripe: no PaymentIntent was ever requested for ${request.reference}` };
      const replayed = await this.create(request, recorded.params);
      // Only an intent Stripe holds can be retrieved; a decline replayed is final as it stands.
      if (replayed.kind === 'processing' || replayed.kind === 'requires_action') return this.retrieve(request, replayed.providerReference);
      // A repeated create that cannot reach Stripe says nothing about the first: ask again later.
      return replayed.kind === 'unreachable' ? { kind: 'unknown', message: replayed.message } : replayed;
    });
  }

  refund(request: RefundRequest): Promise<GatewayRefundOutcome> {
    return outsideUnitOfWork(async () => {
      if (request.chargeProviderReference === null) {
        return { kind: 'declined', code: 'charge_not_found', message: `Stripe: payment ${request.chargeReference} has no PaymentIntent to refund` };
      }
      try {
        return outcomeOfRefund(await this.createRefund(request, request.chargeProviderReference));
      } catch (error) {
        return refundOutcomeOfError(error as StripeErrorFacts);
      }
    });
  }

  lookupRefund(request: RefundRequest): Promise<RefundLookupOutcome> {
    return outsideUnitOfWork(async () => {
      if (request.chargeProviderReference === null) return { kind: 'not_found', message: `Stripe: payment ${request.chargeReference} has no PaymentIntent` };
      try {
        const replayed = await this.createRefund(request, request.chargeProviderReference);
        const outcome = outcomeOfRefund(replayed);
        return outcome.kind === 'pending' ? outcomeOfRefund(await this.client(request.credentials).refunds.retrieve(replayed.id)) : outcome;
      } catch (error) {
        const outcome = refundOutcomeOfError(error as StripeErrorFacts);
        // A repeated create that cannot reach Stripe says nothing about the first: ask again later.
        return outcome.kind === 'unreachable' ? { kind: 'unknown', message: outcome.message } : (outcome as RefundLookupOutcome);
      }
    });
  }

  /** The payment (our reference) a PaymentIntent of the environment was made for, from the record kept here. */
  async referenceOfIntent(environmentId: string, intentId: string): Promise<string | null> {
    const [row] = await queryRows<{ reference: string }>(
      this.manager,
      'select reference from stripe_payment_intents where environment_id = $1 and payment_intent_id = $2',
      [environmentId, intentId],
    );
    return row?.reference ?? null;
  }

  /** Keeps an intent's id for its reference (an event may tell it before the create's answer did). */
  async rememberIntent(environmentId: string, reference: string, intentId: string): Promise<void> {
    await this.manager.query(
      'update stripe_payment_intents set payment_intent_id = $3 where environment_id = $1 and reference = $2 and payment_intent_id is null',
      [environmentId, reference, intentId],
    );
  }

  private async create(request: ChargeRequest, params: IntentParams): Promise<GatewayOutcome> {
    try {
      const intent = await this.client(request.credentials).paymentIntents.create(params, { idempotencyKey: request.reference });
      await this.rememberIntent(request.environmentId, request.reference, intent.id);
      return outcomeOfIntent(intent);
    } catch (error) {
      return outcomeOfError(error as StripeErrorFacts);
    }
  }

  private async retrieve(request: ChargeRequest, intentId: string): Promise<LookupOutcome> {
    try {
      const outcome = outcomeOfIntent(await this.client(request.credentials).paymentIntents.retrieve(intentId));
      return outcome.kind === 'unreachable' ? { kind: 'unknown', message: outcome.message } : outcome;
    } catch (error) {
      const outcome = outcomeOfError(error as StripeErrorFacts);
      // A failed retrieval tells nothing of the intent: ask again later.
      return { kind: 'unknown', message: 'message' in outcome ? outcome.message : 'Stripe: the intent could not be retrieved' };
    }
  }

  private createRefund(request: RefundRequest, intentId: string): Promise<Stripe.Refund> {
    return this.client(request.credentials).refunds.create(
      {
        payment_intent: intentId,
        amount: request.amount,
        metadata: { refundId: request.reference, paymentId: request.chargeReference, environment: request.environmentId },
      },
      { idempotencyKey: request.reference },
    );
  }

  /**
   * The PaymentMethod to charge: the token itself (`pm_…`), or a customer's
   * (`cus_…`) default one, read before anything is recorded: a customer
   * without one is declined, nothing charged.
   */
  private async paymentMethodOf(request: ChargeRequest): Promise<{ kind: 'found'; paymentMethod: string } | { kind: 'failed'; outcome: GatewayOutcome }> {
    if (!request.token.startsWith('cus_')) return { kind: 'found', paymentMethod: request.token };
    try {
      const customer = await this.client(request.credentials).customers.retrieve(request.token);
      const method = 'deleted' in customer && customer.deleted ? null : (customer as Stripe.Customer).invoice_settings?.default_payment_method;
      const id = typeof method === 'string' ? method : (method?.id ?? null);
      if (id !== null) return { kind: 'found', paymentMethod: id };
      return {
        kind: 'failed',
        outcome: {
          kind: 'declined',
          code: 'no_default_payment_method',
          message: `Stripe: customer ${request.token} has no default payment method`,
          soft: false,
        },
      };
    } catch (error) {
      const outcome = outcomeOfError(error as StripeErrorFacts);
      // Nothing was charged by a read: an answer that never came is simply not reaching Stripe.
      return { kind: 'failed', outcome: outcome.kind === 'unknown' ? { kind: 'unreachable', message: outcome.message } : outcome };
    }
  }

  /** The request for this reference: recorded now, or as recorded by a concurrent charge (a retry sends the very same one). */
  private async recordRequest(request: ChargeRequest, paymentMethod: string): Promise<IntentParams> {
    const params = intentParams(request, paymentMethod);
    await this.manager.query(
      `insert into stripe_payment_intents (environment_id, reference, params) values ($1, $2, $3::jsonb) on conflict (environment_id, reference) do nothing`,
      [request.environmentId, request.reference, JSON.stringify(params)],
    );
    return (await this.recorded(request.environmentId, request.reference))!.params;
  }

  private async recorded(environmentId: string, reference: string): Promise<{ params: IntentParams; intentId: string | null } | null> {
    const [row] = await queryRows<{ params: IntentParams; payment_intent_id: string | null }>(
      this.manager,
      'select params, payment_intent_id from stripe_payment_intents where environment_id = $1 and reference = $2',
      [environmentId, reference],
    );
    return row ? { params: row.params, intentId: row.payment_intent_id } : null;
  }
}

/**
 * The PaymentIntent to create and confirm at once: the PaymentMethod, and the
 * customer when the token named one. Without a return_url, payment methods
 * that redirect are not allowed (Stripe refuses such a confirmation
 * otherwise); given one (the hosted invoice page's), 3-D Secure answers a
 * page to send the customer to.
 */
export function intentParams(request: ChargeRequest, paymentMethod: string): IntentParams {
  return {
    amount: request.amount,
    currency: request.currency.toLowerCase(),
    payment_method: paymentMethod,
    ...(request.token.startsWith('cus_') ? { customer: request.token } : {}),
    confirm: true,
    ...(request.offSession
      ? { off_session: true, automatic_payment_methods: { enabled: true, allow_redirects: 'never' } }
      : request.returnUrl
        ? { return_url: request.returnUrl }
        : { automatic_payment_methods: { enabled: true, allow_redirects: 'never' } }),
    metadata: { paymentId: request.reference, invoiceId: request.invoiceId, environment: request.environmentId },
  };
}

/** The decrypted credentials of provider stripe (validated when enabled). */
export function stripeCredentials(credentials: object | null): StripeCredentials {
  const given = credentials as Partial<StripeCredentials> | null;
  if (typeof given?.secretKey !== 'string' || typeof given.webhookSecret !== 'string') throw new Error('stripe: the provider has no credentials');
  return { secretKey: given.secretKey, webhookSecret: given.webhookSecret };
}
