import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import Stripe from 'stripe';

/**
 * A local server speaking Stripe's wire format, for the real `stripe` client
 * (no network in tests): form-encoded bodies with bracketed keys in,
 * Stripe's JSON objects out, built from Stripe's published example objects
 * (stripe-fixtures/fixtures3.json, MIT, see its README) with ids, amounts and
 * statuses changed per case, and Stripe's error body
 * `{error: {type, code, decline_code, message}}` with its status codes.
 *
 * It records every request (path, parsed body, Idempotency-Key,
 * Stripe-Version) and honours idempotency keys like Stripe: the same key
 * answers the stored response (another request under it is a 400
 * idempotency_error). What a confirmation does depends on the PaymentMethod,
 * using Stripe's own test ids (STRIPE_TEST_METHODS). `mode` makes every
 * create misbehave until set back: drop the connection unread, answer 500,
 * rate-limit, or carry the request out and then never answer (a time-out).
 */

const FIXTURES = JSON.parse(readFileSync(join(__dirname, 'stripe-fixtures', 'fixtures3.json'), 'utf8')).resources as Record<string, any>;

/** Stripe's test PaymentMethods (https://docs.stripe.com/testing), and one for a debit that stays processing. */
export const STRIPE_TEST_METHODS = {
  visa: 'pm_card_visa',
  declined: 'pm_card_chargeDeclined',
  insufficientFunds: 'pm_card_chargeDeclinedInsufficientFunds',
  expired: 'pm_card_chargeDeclinedExpiredCard',
  incorrectCvc: 'pm_card_chargeDeclinedIncorrectCvc',
  fraudulent: 'pm_card_chargeDeclinedFraudulent',
  stolen: 'pm_card_chargeDeclinedStolenCard',
  processingError: 'pm_card_chargeDeclinedProcessingError',
  threeDSecure: 'pm_card_threeDSecure2Required',
  authenticationRequired: 'pm_card_authenticationRequired',
  processing: 'pm_usBankAccount_processing',
} as const;

const DECLINES: Record<string, { code: string; decline_code?: string; message: string }> = {
  [STRIPE_TEST_METHODS.declined]: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  [STRIPE_TEST_METHODS.insufficientFunds]: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  [STRIPE_TEST_METHODS.expired]: { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' },
  [STRIPE_TEST_METHODS.incorrectCvc]: { code: 'incorrect_cvc', decline_code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  [STRIPE_TEST_METHODS.fraudulent]: { code: 'card_declined', decline_code: 'fraudulent', message: 'Your card was declined.' },
  [STRIPE_TEST_METHODS.stolen]: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' },
  [STRIPE_TEST_METHODS.processingError]: { code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
};

export interface RecordedStripeRequest {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, any>;
  readonly idempotencyKey: string | null;
  readonly stripeVersion: string | null;
}

export type StripeServerMode = 'normal' | 'drop' | 'server_error' | 'rate_limit' | 'timeout';

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

export class StripeTestServer {
  readonly requests: RecordedStripeRequest[] = [];
  /** Every PaymentIntent made, by id, as it stands now. */
  readonly intents = new Map<string, any>();
  readonly refunds = new Map<string, any>();
  /** Customers and their default PaymentMethod (`cus_…` tokens). */
  readonly customers = new Map<string, string | null>();
  /** How creates behave (payment intents and refunds) until set back to normal. */
  mode: StripeServerMode = 'normal';
  /** The status new refunds get. */
  refundStatus: 'succeeded' | 'pending' = 'succeeded';
  private readonly idempotent = new Map<string, { fingerprint: string; answer: Answer }>();
  private readonly held = new Set<Socket>();
  private server!: Server;
  private counter = 0;

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => void this.serve(request, response));
    this.server.on('connection', (socket) => {
      this.held.add(socket);
      socket.on('close', () => this.held.delete(socket));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.held) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The requests to a path (e.g. `/v1/payment_intents`) with a method. */
  calls(method: string, path: string): RecordedStripeRequest[] {
    return this.requests.filter((request) => request.method === method && request.path === path);
  }

  /** The PaymentIntents made for a payment of ours (its metadata). */
  intentsOf(paymentId: string): any[] {
    return [...this.intents.values()].filter((intent) => intent.metadata.paymentId === paymentId);
  }

  /** Moves an intent on, as Stripe does when the bank answers or the customer acts. */
  settleIntent(intentId: string, status: 'succeeded' | 'requires_payment_method', lastPaymentError: object | null = null): any {
    const intent = this.intents.get(intentId)!;
    Object.assign(intent, { status, next_action: null, last_payment_error: lastPaymentError, amount_received: status === 'succeeded' ? intent.amount : 0 });
    return intent;
  }

  /** A dispute of an intent's charge, from the fixture, open (`needs_response`) or closed. */
  dispute(intentId: string, id: string, status: 'needs_response' | 'won' | 'lost', amount?: number): any {
    const intent = this.intents.get(intentId)!;
    return {
      ...clone(FIXTURES.dispute),
      id,
      amount: amount ?? intent.amount,
      currency: intent.currency,
      charge: intent.latest_charge,
      payment_intent: intent.id,
      reason: 'fraudulent',
      status,
    };
  }

  /** The charge of an intent, from the fixture, with its refunds. */
  charge(intentId: string): any {
    const intent = this.intents.get(intentId)!;
    const refunds = [...this.refunds.values()].filter((refund) => refund.payment_intent === intentId);
    const refunded = refunds.filter((refund) => refund.status === 'succeeded').reduce((sum, refund) => sum + refund.amount, 0);
    return {
      ...clone(FIXTURES.charge),
      id: intent.latest_charge,
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: refunded,
      refunded: refunded === intent.amount,
      captured: true,
      currency: intent.currency,
      payment_intent: intent.id,
      metadata: {},
      status: 'succeeded',
    };
  }

  /** An Event object (from the fixture) carrying `object`. */
  event(type: string, object: unknown, created = Math.floor(Date.now() / 1000)): any {
    return { ...clone(FIXTURES.event), id: `evt_test_${this.next()}`, type, created, api_version: Stripe.API_VERSION, data: { object: clone(object) } };
  }

  private next(): string {
    this.counter += 1;
    return `${Date.now().toString(36)}${this.counter.toString().padStart(6, '0')}`;
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://stripe.test');
    const idempotencyKey = header(request, 'idempotency-key');
    const body = parseForm(text);
    this.requests.push({ method: request.method ?? '', path: url.pathname, body, idempotencyKey, stripeVersion: header(request, 'stripe-version') });
    const creating = request.method === 'POST';
    if (creating && this.mode === 'drop') {
      request.socket.destroy();
      return;
    }
    if (creating && this.mode === 'server_error') {
      // Stripe's 500 when nothing was carried out: not stored, and the client told not to retry.
      return send(response, { status: 500, body: error('api_error', undefined, 'An unknown error occurred') }, { 'stripe-should-retry': 'false' });
    }
    if (creating && this.mode === 'rate_limit') {
      return send(
        response,
        { status: 429, body: error('invalid_request_error', 'rate_limit', 'Too many requests hit the API too quickly.') },
        { 'stripe-should-retry': 'false' },
      );
    }
    let answer: Answer;
    if (creating && idempotencyKey !== null) {
      const key = `${url.pathname}\n${idempotencyKey}`;
      const stored = this.idempotent.get(key);
      if (stored && stored.fingerprint !== text) {
        answer = {
          status: 400,
          body: error('idempotency_error', undefined, `Keys for idempotent requests can only be used with the same parameters they were first used with.`),
        };
      } else if (stored) {
        answer = stored.answer;
      } else {
        answer = this.route(request.method ?? '', url.pathname, body);
        // Stored as answered then: a replay shows the object as it was, not as it is now (like Stripe's).
        this.idempotent.set(key, { fingerprint: text, answer: clone(answer) });
      }
    } else {
      answer = this.route(request.method ?? '', url.pathname, body);
    }
    // Carried out and recorded, but the answer never comes: the client times out.
    if (creating && this.mode === 'timeout') return;
    send(response, answer, idempotencyKey !== null ? { 'idempotency-key': idempotencyKey } : {});
  }

  private route(method: string, path: string, body: Record<string, any>): Answer {
    const [, version, resource, id] = path.split('/');
    if (version !== 'v1') return notFound(path);
    if (method === 'POST' && resource === 'payment_intents' && id === undefined) return this.createIntent(body);
    if (method === 'GET' && resource === 'payment_intents' && id) {
      const intent = this.intents.get(id);
      return intent ? { status: 200, body: intent } : notFound(path, 'payment_intent');
    }
    if (method === 'POST' && resource === 'refunds' && id === undefined) return this.createRefund(body);
    if (method === 'GET' && resource === 'refunds' && id) {
      const refund = this.refunds.get(id);
      return refund ? { status: 200, body: refund } : notFound(path, 'refund');
    }
    if (method === 'GET' && resource === 'customers' && id) {
      if (!this.customers.has(id)) return notFound(path, 'customer');
      return {
        status: 200,
        body: { ...clone(FIXTURES.customer), id, invoice_settings: { ...FIXTURES.customer.invoice_settings, default_payment_method: this.customers.get(id) } },
      };
    }
    return notFound(path);
  }

  private createIntent(body: Record<string, any>): Answer {
    const method: string = body.payment_method;
    const offSession = body.off_session === 'true';
    const id = `pi_test_${this.next()}`;
    const intent = {
      ...clone(FIXTURES.payment_intent),
      id,
      client_secret: `${id}_secret_test`,
      amount: Number(body.amount),
      amount_received: 0,
      currency: body.currency,
      customer: body.customer ?? null,
      payment_method: method,
      metadata: body.metadata ?? {},
      latest_charge: `ch_test_${this.next()}`,
      created: Math.floor(Date.now() / 1000),
      canceled_at: null,
      next_action: null,
      last_payment_error: null,
      processing: null,
      status: 'succeeded',
    };
    const decline =
      DECLINES[method] ??
      (method === STRIPE_TEST_METHODS.authenticationRequired && offSession
        ? { code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card requires authentication.' }
        : undefined);
    if (decline) {
      // Stripe keeps the failed intent, back at requires_payment_method, and answers the card error naming it.
      const failed = { ...intent, status: 'requires_payment_method', last_payment_error: { type: 'card_error', ...decline } };
      this.intents.set(id, failed);
      return { status: 402, body: { error: { type: 'card_error', ...decline, payment_intent: failed } } };
    }
    if (method === STRIPE_TEST_METHODS.threeDSecure || method === STRIPE_TEST_METHODS.authenticationRequired) {
      intent.status = 'requires_action';
      intent.next_action = body.return_url
        ? { type: 'redirect_to_url', redirect_to_url: { url: `https://hooks.stripe.com/3d_secure_2/hosted?payment_intent=${id}`, return_url: body.return_url } }
        : { type: 'use_stripe_sdk', use_stripe_sdk: {} };
    } else if (method === STRIPE_TEST_METHODS.processing) {
      intent.status = 'processing';
      intent.processing = { type: 'card' };
    } else if (!method?.startsWith('pm_')) {
      return { status: 400, body: error('invalid_request_error', 'resource_missing', `No such PaymentMethod: '${method}'`) };
    } else {
      intent.amount_received = intent.amount;
    }
    this.intents.set(id, intent);
    return { status: 200, body: intent };
  }

  private createRefund(body: Record<string, any>): Answer {
    const intent = this.intents.get(body.payment_intent);
    if (!intent || intent.status !== 'succeeded') {
      return { status: 400, body: error('invalid_request_error', 'resource_missing', `No such payment_intent: '${body.payment_intent}'`) };
    }
    const refunded = [...this.refunds.values()]
      .filter((refund) => refund.payment_intent === intent.id && refund.status !== 'failed')
      .reduce((sum, refund) => sum + refund.amount, 0);
    const amount = body.amount === undefined ? intent.amount - refunded : Number(body.amount);
    if (amount > intent.amount - refunded) {
      return { status: 400, body: error('invalid_request_error', 'amount_too_large', `Refund amount is greater than unrefunded amount on charge.`) };
    }
    const refund = {
      ...clone(FIXTURES.refund),
      id: `re_test_${this.next()}`,
      amount,
      currency: intent.currency,
      charge: intent.latest_charge,
      payment_intent: intent.id,
      metadata: body.metadata ?? {},
      created: Math.floor(Date.now() / 1000),
      status: this.refundStatus,
    };
    this.refunds.set(refund.id, refund);
    return { status: 200, body: refund };
  }
}

/** `a[b][c]=1&list[0]=x` → {a: {b: {c: '1'}}, list: {0: 'x'}}: Stripe's form encoding, values as strings. */
export function parseForm(text: string): Record<string, any> {
  const result: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let target = result;
    for (const part of path.slice(0, -1)) target = target[part] ??= {};
    target[path[path.length - 1]] = value;
  }
  return result;
}

function error(type: string, code: string | undefined, message: string): { error: Record<string, string> } {
  return { error: { type, ...(code ? { code } : {}), message } };
}

function notFound(path: string, resource?: string): Answer {
  return {
    status: 404,
    body: error('invalid_request_error', 'resource_missing', resource ? `No such ${resource}: '${path.split('/')[3]}'` : `Unrecognized request URL (${path})`),
  };
}

function send(response: ServerResponse, answer: Answer, headers: Record<string, string>): void {
  const text = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': `req_test_${Math.random().toString(36).slice(2, 12)}`,
    'stripe-version': Stripe.API_VERSION,
    ...headers,
  });
  response.end(text);
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' ? value : null;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
