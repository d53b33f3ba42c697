import { randomBytes, randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { collectingSubscription } from './collection-kit';
import { STRIPE_TEST_METHODS as PM, StripeTestServer } from './stripe-test-server';

/**
 * Provider `stripe` over HTTP against real Postgres, with the real `stripe`
 * client talking to a local server that speaks Stripe's wire format
 * (stripe-test-server.ts): what each call sends (amount, currency, metadata,
 * Idempotency-Key, Stripe-Version), how each answer maps, the unknown
 * outcomes resolved without a second charge, refunds, and Stripe's signed
 * events (signatures made with the client's own generateTestHeaderString).
 */
describe('Stripe payments (the official client against a local Stripe)', () => {
  const server = new StripeTestServer();
  const stripe = new Stripe('sk_test_unused', { apiVersion: Stripe.API_VERSION });
  const SECRET_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
  const RESOLVE_AFTER_MS = 4_000;
  let t: TestApp;

  beforeAll(async () => {
    const base = await server.start();
    // The client's time limit (with its two retries and their back-off) stays well below the resolver's wait.
    t = await startTestApp({ env: { STRIPE_API_BASE: base, STRIPE_TIMEOUT_MS: '400', PAYMENTS_RESOLVE_AFTER_MS: String(RESOLVE_AFTER_MS) } });
  });
  afterEach(() => {
    server.mode = 'normal';
    server.refundStatus = 'succeeded';
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  function environment() {
    const id = randomUUID();
    const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
    const call = environmentCall(t, id);
    const env = {
      id,
      call,
      webhookSecret,
      async enable() {
        return call('POST', '/paymentproviders/enable', { name: 'stripe', credentials: { secretKey: SECRET_KEY, webhookSecret } }, 200);
      },
      async bookedInvoice(amount = 10_000): Promise<string> {
        const created = await call(
          'POST',
          '/invoices',
          { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' }, currency: 'EUR', items: [{ title: 'Plan', quantity: 1, unitAmount: amount }] },
          201,
        );
        await call('PUT', `/invoices/${created.body.id}/book`, {}, 200);
        return created.body.id;
      },
      pay(invoiceId: string, token: string) {
        return call('POST', '/payments', { invoiceId, paymentMethod: { provider: 'stripe', token } });
      },
      async payment(paymentId: string) {
        return (await call('GET', `/payments/${paymentId}`, undefined, 200)).body;
      },
      async invoice(invoiceId: string) {
        return (await call('GET', `/invoices/${invoiceId}`, undefined, 200)).body;
      },
      invoiceAt(invoiceId: string, totalDue: number) {
        return eventually(
          () => env.invoice(invoiceId),
          (invoice) => invoice.totalDue === totalDue,
          { what: `invoice at totalDue ${totalDue}` },
        );
      },
      paymentAt(paymentId: string, status: string) {
        return eventually(
          () => env.payment(paymentId),
          (payment) => payment.status === status,
          { what: `payment ${status}`, timeoutMs: 20_000 },
        );
      },
      /** Posts a Stripe event as Stripe would: the raw JSON, signed with `secret` at `timestamp`. */
      webhook(event: unknown, options: { secret?: string; timestamp?: number; environmentId?: string } = {}) {
        const payload = JSON.stringify(event);
        const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? webhookSecret, timestamp: options.timestamp });
        return t.request('POST', `/gateway-webhooks/stripe/${options.environmentId ?? id}`, {
          token: null,
          environment: null,
          rawBody: payload,
          headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
        });
      },
      async events(type: string): Promise<number> {
        const [row] = await t.dataSource.query(`select count(*)::int as n from events where environment_id = $1 and event_type = $2`, [id, type]);
        return row.n;
      },
    };
    return env;
  }

  async function paying(amount = 10_000) {
    const env = environment();
    await env.enable();
    return { env, invoiceId: await env.bookedInvoice(amount) };
  }

  describe('enabling', () => {
    it('encrypts the credentials: the answer, the provider list and the event log carry only the hint', async () => {
      const env = environment();
      const enabled = await env.enable();
      expect(enabled.body).toMatchObject({ name: 'stripe', status: 'enabled', credentialsHint: `sk_test_${SECRET_KEY.slice(-4)}` });
      expect(enabled.text).not.toContain(SECRET_KEY);
      expect(enabled.text).not.toContain(env.webhookSecret);
      const [row] = await t.dataSource.query(`select data::text as data from events where environment_id = $1 and event_type = 'PaymentProviderEnabled'`, [
        env.id,
      ]);
      expect(row.data).not.toContain(SECRET_KEY.slice(8));
      expect(row.data).not.toContain(env.webhookSecret.slice(6));
      expect(JSON.stringify((await env.call('GET', '/paymentproviders')).body)).not.toContain(SECRET_KEY);
    });

    it.each([
      [{ secretKey: 'pk_test_51AbCdEfGhIjKlMn', webhookSecret: 'whsec_0123456789abcdef' }, '/credentials/secretKey'],
      [{ secretKey: 'sk_test_51AbCdEfGhIjKlMn', webhookSecret: 'wh_0123456789abcdef' }, '/credentials/webhookSecret'],
      [{ secretKey: 'sk_test_51AbCdEfGhIjKlMn' }, '/credentials/webhookSecret'],
      [{ secretKey: 'sk_test_51AbCdEfGhIjKlMn', webhookSecret: 'whsec_0123456789abcdef', account: 'acct_1' }, '/credentials/account'],
    ])('refuses %p with a 422 at %s, never echoing the key', async (credentials, pointer) => {
      const env = environment();
      const refused = await env.call('POST', '/paymentproviders/enable', { name: 'stripe', credentials });
      expectProblem(refused, 422, 'validation-failed', pointer);
      expect(refused.text).not.toContain('51AbCdEfGhIjKlMn');
    });

    it('refuses a live key once the environment test clock was advanced (a test key is fine there)', async () => {
      const env = environment();
      await env.call('POST', '/test-clock/advance', { to: new Date(Date.now() + 86_400_000).toISOString() }, 200);
      const live = await env.call('POST', '/paymentproviders/enable', {
        name: 'stripe',
        credentials: { secretKey: 'sk_live_51AbCdEfGhIjKlMn', webhookSecret: env.webhookSecret },
      });
      expectProblem(live, 422, 'validation-failed', '/credentials/secretKey');
      expect(live.body.errors[0].detail).toContain('test clock');
      await env.enable();
    });
  });

  describe('charging', () => {
    it('succeeded: one PaymentIntent created and confirmed with amount, currency, method and metadata, the payment id as Idempotency-Key', async () => {
      const { env, invoiceId } = await paying(12_345);
      const created = await env.pay(invoiceId, PM.visa);
      expect(created.status).toBe(201);
      const [intent] = server.intentsOf(created.body.id);
      expect(created.body).toMatchObject({ status: 'succeeded', provider: 'stripe', providerReference: intent.id, amount: 12_345 });
      const [call] = server.calls('POST', '/v1/payment_intents').filter((request) => request.idempotencyKey === created.body.id);
      expect(call.body).toEqual({
        amount: '12345',
        currency: 'eur',
        payment_method: PM.visa,
        confirm: 'true',
        automatic_payment_methods: { enabled: 'true', allow_redirects: 'never' },
        metadata: { paymentId: created.body.id, invoiceId, environment: env.id },
      });
      expect(call.stripeVersion).toBe(Stripe.API_VERSION);
      expect(server.intentsOf(created.body.id)).toHaveLength(1);
      await env.invoiceAt(invoiceId, 0);
    });

    it.each([
      [PM.insufficientFunds, 'insufficient_funds', true],
      [PM.processingError, 'processing_error', true],
      [PM.declined, 'generic_decline', false],
      [PM.expired, 'expired_card', false],
      [PM.incorrectCvc, 'incorrect_cvc', false],
      [PM.stolen, 'stolen_card', false],
      [PM.fraudulent, 'fraudulent', false],
    ])('%s: failed with failureCode %s (soft: %p), the invoice still due', async (method, failureCode, soft) => {
      const { env, invoiceId } = await paying();
      const created = await env.pay(invoiceId, method);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ status: 'failed', failureCode, failureMessage: expect.stringContaining('Stripe:') });
      const [row] = await t.dataSource.query(`select data from events where environment_id = $1 and event_type = 'PaymentFailed'`, [env.id]);
      expect(row.data.retryable).toBe(soft);
      expect((await env.invoice(invoiceId)).totalDue).toBe(10_000);
      // Declined, the invoice is free for the next payment.
      expect((await env.pay(invoiceId, PM.visa)).body.status).toBe('succeeded');
    });

    it('an unknown PaymentMethod is a hard decline (Stripe 400 resource_missing); a customer is charged with its default method', async () => {
      const { env, invoiceId } = await paying();
      expect((await env.pay(invoiceId, 'card_nonsense')).body).toMatchObject({ status: 'failed', failureCode: 'resource_missing' });
      server.customers.set('cus_test_default', PM.visa);
      const byCustomer = await env.pay(invoiceId, 'cus_test_default');
      expect(byCustomer.body.status).toBe('succeeded');
      const [call] = server.calls('POST', '/v1/payment_intents').filter((request) => request.idempotencyKey === byCustomer.body.id);
      expect(call.body).toMatchObject({ customer: 'cus_test_default', payment_method: PM.visa });
    });

    it('processing: pending with the intent as reference, the invoice held; payment_intent.succeeded settles it', async () => {
      const { env, invoiceId } = await paying();
      const created = await env.pay(invoiceId, PM.processing);
      const [intent] = server.intentsOf(created.body.id);
      expect(created.body).toMatchObject({ status: 'pending', providerReference: intent.id });
      expectProblem(await env.pay(invoiceId, PM.visa), 409, 'payment-pending');
      server.settleIntent(intent.id, 'succeeded');
      const received = await env.webhook(server.event('payment_intent.succeeded', intent));
      expect(received.status).toBe(200);
      expect(received.body).toEqual({ received: true, duplicate: false });
      expect((await env.payment(created.body.id)).status).toBe('succeeded');
      await env.invoiceAt(invoiceId, 0);
      expect(server.intentsOf(created.body.id)).toHaveLength(1);
    });

    it('requires_action: the payment waits with nextAction.url; payment_intent.succeeded after 3-D Secure settles it', async () => {
      const { env, invoiceId } = await paying();
      const created = await env.pay(invoiceId, PM.threeDSecure);
      const [intent] = server.intentsOf(created.body.id);
      expect(created.body).toMatchObject({ status: 'requires_action', providerReference: intent.id, nextAction: { url: null } });
      expect(await env.events('PaymentActionRequired')).toBe(1);
      expectProblem(await env.pay(invoiceId, PM.visa), 409, 'payment-pending');
      // The same state reported again changes nothing.
      expect((await env.webhook(server.event('payment_intent.requires_action', intent))).status).toBe(200);
      expect(await env.events('PaymentActionRequired')).toBe(1);
      server.settleIntent(intent.id, 'succeeded');
      expect((await env.webhook(server.event('payment_intent.succeeded', intent))).status).toBe(200);
      const paid = await env.payment(created.body.id);
      expect(paid.status).toBe('succeeded');
      expect(paid).not.toHaveProperty('nextAction');
      await env.invoiceAt(invoiceId, 0);
    });

    it('on the hosted invoice page: the form takes a PaymentMethod id; 3-D Secure sends the customer to Stripe and back', async () => {
      const { env, invoiceId } = await paying();
      const pagePath = new URL((await env.invoice(invoiceId)).hostedInvoiceUrl).pathname;
      const open = (path: string, init?: RequestInit) => fetch(`${t.baseUrl}${path}`, { redirect: 'manual', ...init });
      const page = await (await open(pagePath)).text();
      expect(page).toContain('Stripe PaymentMethod id');
      const nonce = /name="nonce" value="([^"]+)"/.exec(page)![1];
      const posted = await open(`${pagePath}/pay`, {
        method: 'POST',
        body: new URLSearchParams({ nonce, provider: 'stripe', token: PM.threeDSecure }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(posted.status).toBe(303);
      const [intent] = [...server.intents.values()].filter((candidate) => candidate.metadata.invoiceId === invoiceId);
      expect(posted.headers.get('location')).toBe(intent.next_action.redirect_to_url.url);
      // Stripe sends the customer back to the page that says the payment's state.
      const returnUrl = new URL(intent.next_action.redirect_to_url.return_url);
      expect(returnUrl.pathname).toBe(pagePath);
      expect(await (await open(`${returnUrl.pathname}${returnUrl.search}`)).text()).toContain('confirm this payment');
      expect(await env.payment(intent.metadata.paymentId)).toMatchObject({ status: 'requires_action', nextAction: { url: posted.headers.get('location') } });
    });

    it('payment_intent.payment_failed after processing: failed with the last error classified', async () => {
      const { env, invoiceId } = await paying();
      const created = await env.pay(invoiceId, PM.processing);
      const [intent] = server.intentsOf(created.body.id);
      server.settleIntent(intent.id, 'requires_payment_method', {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'insufficient_funds',
        message: 'No funds.',
      });
      expect((await env.webhook(server.event('payment_intent.payment_failed', intent))).status).toBe(200);
      expect(await env.payment(created.body.id)).toMatchObject({ status: 'failed', failureCode: 'insufficient_funds', failureMessage: 'No funds.' });
    });

    it('a connection dropped after the request was sent (the client retried under the same key): pending, then the lookup: one PaymentIntent', async () => {
      const { env, invoiceId } = await paying();
      server.mode = 'drop';
      const created = await env.pay(invoiceId, PM.visa);
      // Stripe may have carried the request out before the connection dropped: never failed (a new try under a new
      // key could charge twice), looked up under the same key instead.
      expect(created.body.status).toBe('pending');
      const attempts = server.calls('POST', '/v1/payment_intents').filter((request) => request.idempotencyKey === created.body.id);
      expect(attempts.length).toBeGreaterThan(1);
      expect(server.intentsOf(created.body.id)).toHaveLength(0);
      server.mode = 'normal';
      await env.paymentAt(created.body.id, 'succeeded');
      expect(server.intentsOf(created.body.id)).toHaveLength(1);
    });

    it('a 500: pending, then the lookup repeats the create under the same key once Stripe answers: one PaymentIntent', async () => {
      const { env, invoiceId } = await paying();
      server.mode = 'server_error';
      const created = await env.pay(invoiceId, PM.visa);
      expect(created.body.status).toBe('pending');
      expect(server.intentsOf(created.body.id)).toHaveLength(0);
      server.mode = 'normal';
      const resolved = await env.paymentAt(created.body.id, 'succeeded');
      const [intent] = server.intentsOf(created.body.id);
      expect(server.intentsOf(created.body.id)).toHaveLength(1);
      expect(resolved.providerReference).toBe(intent.id);
      const sent = server.calls('POST', '/v1/payment_intents').filter((request) => request.idempotencyKey === created.body.id);
      expect(new Set(sent.map((request) => JSON.stringify(request.body))).size).toBe(1);
    });

    it('a time-out after Stripe recorded the intent: pending, then the lookup finds that very intent: exactly one PaymentIntent, one charge', async () => {
      const { env, invoiceId } = await paying();
      server.mode = 'timeout';
      const created = await env.pay(invoiceId, PM.visa);
      expect(created.body.status).toBe('pending');
      expect(server.intentsOf(created.body.id)).toHaveLength(1);
      server.mode = 'normal';
      const resolved = await env.paymentAt(created.body.id, 'succeeded');
      const intents = server.intentsOf(created.body.id);
      expect(intents).toHaveLength(1);
      expect(resolved.providerReference).toBe(intents[0].id);
      const creates = server.calls('POST', '/v1/payment_intents').filter((request) => request.idempotencyKey === created.body.id);
      expect(creates.length).toBeGreaterThan(1);
      expect(creates.every((request) => request.body.amount === '10000' && request.body.metadata.paymentId === created.body.id)).toBe(true);
      await env.invoiceAt(invoiceId, 0);
    });
  });

  describe('refunds', () => {
    it('a partial then the full rest: refunds.create on the intent with the refund id as Idempotency-Key; the invoice moves back', async () => {
      const { env, invoiceId } = await paying();
      const paid = (await env.pay(invoiceId, PM.visa)).body;
      await env.invoiceAt(invoiceId, 0);
      const partial = await env.call('PUT', `/payments/${paid.id}/refund`, { amount: 2_500 }, 200);
      const [first] = partial.body.refunds;
      expect(first).toMatchObject({ amount: 2_500, status: 'succeeded', providerReference: expect.stringMatching(/^re_/) });
      const [call] = server.calls('POST', '/v1/refunds').filter((request) => request.idempotencyKey === first.id);
      expect(call.body).toEqual({
        payment_intent: paid.providerReference,
        amount: '2500',
        metadata: { refundId: first.id, paymentId: paid.id, environment: env.id },
      });
      await env.invoiceAt(invoiceId, 2_500);
      const rest = await env.call('PUT', `/payments/${paid.id}/refund`, { amount: 7_500 }, 200);
      expect(rest.body).toMatchObject({ refundedAmount: 10_000 });
      await env.invoiceAt(invoiceId, 10_000);
    });

    it('a pending refund stays pending until refund.updated says it succeeded', async () => {
      const { env, invoiceId } = await paying();
      const paid = (await env.pay(invoiceId, PM.visa)).body;
      server.refundStatus = 'pending';
      const asked = await env.call('PUT', `/payments/${paid.id}/refund`, { amount: 10_000 }, 200);
      const refundId = asked.body.refunds[0].id;
      expect(asked.body.refunds[0].status).toBe('pending');
      const refund = [...server.refunds.values()].find((candidate) => candidate.metadata.refundId === refundId);
      refund.status = 'succeeded';
      expect((await env.webhook(server.event('refund.updated', refund))).status).toBe(200);
      expect((await env.payment(paid.id)).refunds[0]).toMatchObject({ id: refundId, status: 'succeeded', providerReference: refund.id });
      // charge.refunded for the same refund afterwards changes nothing.
      expect((await env.webhook(server.event('charge.refunded', server.charge(paid.providerReference)))).status).toBe(200);
      expect(await env.events('PaymentRefunded')).toBe(1);
    });
    it('a pending refund with no event is resolved by the lookup: the create repeated under its key, then the refund retrieved', async () => {
      const { env, invoiceId } = await paying();
      const paid = (await env.pay(invoiceId, PM.visa)).body;
      server.refundStatus = 'pending';
      const refundId = (await env.call('PUT', `/payments/${paid.id}/refund`, { amount: 4_000 }, 200)).body.refunds[0].id;
      const refund = [...server.refunds.values()].find((candidate) => candidate.metadata.refundId === refundId);
      refund.status = 'succeeded';
      await eventually(
        () => env.payment(paid.id),
        (payment) => payment.refunds[0].status === 'succeeded',
        { what: 'the refund looked up', timeoutMs: 20_000 },
      );
      expect(server.calls('GET', `/v1/refunds/${refund.id}`).length).toBeGreaterThan(0);
      expect([...server.refunds.values()].filter((candidate) => candidate.metadata.refundId === refundId)).toHaveLength(1);
      await env.invoiceAt(invoiceId, 4_000);
    });
  });

  describe("Stripe's events", () => {
    it('a dispute opened takes the amount back (payment disputed, notification payment.disputed); won settles it again', async () => {
      const { env, invoiceId } = await paying();
      const paid = (await env.pay(invoiceId, PM.visa)).body;
      await env.invoiceAt(invoiceId, 0);
      const opened = await env.webhook(server.event('charge.dispute.created', server.dispute(paid.providerReference, 'dp_test_won', 'needs_response')));
      expect(opened.status).toBe(200);
      expect(await env.payment(paid.id)).toMatchObject({ status: 'disputed', dispute: { id: 'dp_test_won', amount: 10_000, status: 'open' } });
      await env.invoiceAt(invoiceId, 10_000);
      expect(await env.events('PaymentDisputed')).toBe(1);
      expect((await env.webhook(server.event('charge.dispute.closed', server.dispute(paid.providerReference, 'dp_test_won', 'won')))).status).toBe(200);
      expect(await env.payment(paid.id)).toMatchObject({ status: 'succeeded', dispute: { status: 'won' } });
      await env.invoiceAt(invoiceId, 0);
    });

    it('a dispute lost leaves the invoice unpaid by it', async () => {
      const { env, invoiceId } = await paying();
      const paid = (await env.pay(invoiceId, PM.visa)).body;
      await env.webhook(server.event('charge.dispute.created', server.dispute(paid.providerReference, 'dp_test_lost', 'needs_response')));
      await env.webhook(server.event('charge.dispute.closed', server.dispute(paid.providerReference, 'dp_test_lost', 'lost')));
      expect(await env.payment(paid.id)).toMatchObject({ status: 'disputed', dispute: { status: 'lost' } });
      await env.invoiceAt(invoiceId, 10_000);
    });

    it('the same event twice, and events out of order, change nothing twice', async () => {
      const { env, invoiceId } = await paying();
      const paid = (await env.pay(invoiceId, PM.visa)).body;
      const created = server.event('charge.dispute.created', server.dispute(paid.providerReference, 'dp_test_order', 'needs_response'));
      const closed = server.event('charge.dispute.closed', server.dispute(paid.providerReference, 'dp_test_order', 'won'));
      // Closed (won) arrives first: both recorded, the invoice nets to paid.
      expect((await env.webhook(closed)).body).toEqual({ received: true, duplicate: false });
      expect((await env.webhook(closed)).body).toEqual({ received: true, duplicate: true });
      expect((await env.webhook(created)).body).toEqual({ received: true, duplicate: false });
      expect(await env.payment(paid.id)).toMatchObject({ status: 'succeeded', dispute: { status: 'won' } });
      expect(await env.events('PaymentDisputed')).toBe(1);
      expect(await env.events('PaymentDisputeClosed')).toBe(1);
      // A late processing event for an intent that succeeded long ago changes nothing either.
      const intent = server.intents.get(paid.providerReference);
      expect((await env.webhook(server.event('payment_intent.processing', { ...intent, status: 'processing' }))).status).toBe(200);
      expect((await env.payment(paid.id)).status).toBe('succeeded');
      // The invoice owed nothing before the dispute events too: wait for their two settlements (applied by a reactor), not for the total.
      const disputeSettlements = (invoice: any) => invoice.settlements.filter((settlement: any) => settlement.reference?.startsWith('dispute'));
      const invoice = await eventually(
        () => env.invoice(invoiceId),
        (current) => disputeSettlements(current).length >= 2,
        { what: 'the two dispute settlements on the invoice' },
      );
      expect(disputeSettlements(invoice)).toHaveLength(2);
      expect(invoice.totalDue).toBe(0);
    });

    it('a bad signature, an old timestamp, another environment’s secret, no provider: 400, nothing recorded', async () => {
      const { env, invoiceId } = await paying();
      const created = await env.pay(invoiceId, PM.processing);
      const [intent] = server.intentsOf(created.body.id);
      server.settleIntent(intent.id, 'succeeded');
      const event = server.event('payment_intent.succeeded', intent);
      const other = environment();
      await other.enable();
      const refusals = [
        await env.webhook(event, { secret: `whsec_${randomBytes(16).toString('hex')}` }),
        await env.webhook(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
        await env.webhook(event, { secret: other.webhookSecret }),
        await env.webhook(event, { environmentId: randomUUID() }),
        await t.request('POST', `/gateway-webhooks/stripe/${env.id}`, {
          token: null,
          environment: null,
          rawBody: JSON.stringify(event),
          headers: { 'content-type': 'application/json' },
        }),
      ];
      for (const refused of refusals) expectProblem(refused, 400, 'invalid-gateway-event');
      expect((await env.payment(created.body.id)).status).toBe('pending');
      const [{ n }] = await t.dataSource.query(`select count(*)::int as n from stripe_webhook_events where event_id = $1`, [event.id]);
      expect(n).toBe(0);
      // The genuine one still goes through.
      expect((await env.webhook(event)).status).toBe(200);
      expect((await env.payment(created.body.id)).status).toBe('succeeded');
    });

    it('a signed body that is not an event (no data or id, NUL in id or type, not an object): 400 at its pointer, nothing recorded (issue 41 #19)', async () => {
      const { env, invoiceId } = await paying();
      const created = await env.pay(invoiceId, PM.processing);
      const [intent] = server.intentsOf(created.body.id);
      server.settleIntent(intent.id, 'succeeded');
      const event = server.event('payment_intent.succeeded', intent) as Record<string, any>;
      const { id: _id, ...withoutId } = event;
      const { data: _data, ...withoutData } = event;
      const recorded = async () => {
        const [row] = await t.dataSource.query(
          `select (select count(*)::int from events where environment_id = $1 and metadata->>'actor' = 'system:stripe-webhook') as events,
                  (select count(*)::int from stripe_webhook_events where environment_id = $1) as seen`,
          [env.id],
        );
        return row;
      };
      const malformed: [unknown, string][] = [
        [{ ...event, data: null }, '/data/object'],
        [withoutData, '/data/object'],
        [{ ...event, data: { object: null } }, '/data/object'],
        [withoutId, '/id'],
        [{ ...event, id: '' }, '/id'],
        [{ ...event, id: `${event.id}\u0000` }, '/id'],
        [{ ...event, type: 'payment_intent.succeeded\u0000' }, '/type'],
        [{ ...event, type: 7 }, '/type'],
        [{ ...event, data: { object: { ...event.data.object, metadata: { paymentId: 'a\u0000b' } } } }, '/data/object/metadata/paymentId'],
        [{ ...event, id: 'evt_\ud800' }, '/id'],
        [null, ''],
        [[event], ''],
      ];
      for (const [body, pointer] of malformed) {
        const refused = await env.webhook(body);
        expectProblem(refused, 400, 'invalid-gateway-event', pointer);
      }
      expect(await recorded()).toEqual({ events: 0, seen: 0 });
      expect((await env.payment(created.body.id)).status).toBe('pending');
      // The same event, well formed: handled and recorded (the count above would have seen it).
      expect((await env.webhook(event)).status).toBe(200);
      expect((await env.payment(created.body.id)).status).toBe('succeeded');
      expect(await recorded()).toEqual({ events: expect.any(Number), seen: 1 });
      expect((await recorded()).events).toBeGreaterThan(0);
    });
  });

  describe('dunning', () => {
    // The collection kit's calendar (2026) on a clock of its own; Stripe's signatures and the client's timers run in real time anyway.
    const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
    let d: TestApp;

    beforeAll(async () => {
      d = await startTestApp({ clock, env: { STRIPE_API_BASE: `http://127.0.0.1:${server.port}`, STRIPE_TIMEOUT_MS: '400' } });
    });
    afterAll(() => d.close());

    it('Stripe refusing the call (429: nothing carried out) is a soft failure: the collection retries it off-session on the test clock, and the retry succeeds', async () => {
      const id = randomUUID();
      const call = environmentCall(d, id);
      const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
      server.mode = 'rate_limit';
      await collectingSubscription(call, { token: PM.visa, provider: { name: 'stripe', credentials: { secretKey: SECRET_KEY, webhookSecret } } });
      await call('POST', '/test-clock/advance', { to: '2026-02-01T00:00:00.000Z' }, 200);
      const invoiceId = (await call('GET', '/invoices', undefined, 200)).body.items[0].id as string;
      const payments = async () =>
        (await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoiceId}`)}&orderBy=CreatedAt`, undefined, 200)).body.items as any[];
      const [failed] = await eventually(payments, (items) => items.length === 1 && items[0].status === 'failed', { what: 'the first try failed' });
      expect(failed.failureCode).toBe('gateway_unreachable');
      server.mode = 'normal';
      await call('POST', '/test-clock/advance', { to: '2026-02-02T00:00:00.000Z' }, 200);
      const [, retried] = await eventually(payments, (items) => items.length === 2 && items[1].status === 'succeeded', { what: 'the retry succeeded' });
      expect(retried.attempt).toBe(2);
      const [create] = server.calls('POST', '/v1/payment_intents').filter((request) => request.idempotencyKey === retried.id);
      expect(create.body).toMatchObject({ off_session: 'true', amount: '2500', currency: 'eur', metadata: { paymentId: retried.id, invoiceId } });
    });
  });
});
