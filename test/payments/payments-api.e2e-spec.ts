import { randomUUID } from 'node:crypto';
import { eventually, expectProblem, startTestApp, TestApp, TestResponse } from '@billing/testing';
import { createSelfSignedCertificate, Receiver, TestCertificate } from '../webhooks/webhook-test-kit';

/**
 * The payments API's edges: environments (404 across them on every route,
 * 403 without access to one), malformed bodies, Idempotency-Key on POST
 * /payments (a replay charges nothing), and the payment notifications a
 * webhook receiver gets (never carrying the provider's secret).
 */
describe('Payments API: environments, bodies, Idempotency-Key, notifications', () => {
  const SECRET = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
  let t: TestApp;
  let certificate: TestCertificate;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CA_FILE: certificate.certFile, WEBHOOK_POLL_INTERVAL_MS: '100' } });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await t?.close();
    certificate.remove();
  });

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.request(method, path, { ...options, body, headers });
    const ok = async (method: string, path: string, body: unknown, expected: number, headers?: Record<string, string>): Promise<TestResponse> => {
      const response = await call(method, path, body, headers);
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    return {
      id,
      call,
      ok,
      enableSandbox: (secret = SECRET) => ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: secret } }, 200),
      async bookedInvoice(amount = 10_000): Promise<string> {
        const created = await ok(
          'POST',
          '/invoices',
          { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' }, currency: 'EUR', items: [{ title: 'Plan', quantity: 1, unitAmount: amount }] },
          201,
        );
        await ok('PUT', `/invoices/${created.body.id}/book`, {}, 200);
        return created.body.id;
      },
      pay: (invoiceId: string, token: string, headers?: Record<string, string>) =>
        call('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token } }, headers),
      async count(eventType: string): Promise<number> {
        const [row] = await t.dataSource.query(`select count(*)::int as n from events where environment_id = $1 and event_type = $2`, [id, eventType]);
        return row.n;
      },
      async charges(): Promise<number> {
        const [row] = await t.dataSource.query(`select count(*)::int as n from sandbox_gateway_charges where environment_id = $1`, [id]);
        return row.n;
      },
    };
  }

  describe('environments', () => {
    it('another environment’s payment, invoice and providers are not found on any payments route', async () => {
      const a = environment();
      await a.enableSandbox();
      const invoiceId = await a.bookedInvoice(1_000);
      const payment = (await a.pay(invoiceId, 'tok_success')).body;
      expect(payment.status).toBe('succeeded');
      const secondInvoice = await a.bookedInvoice(2_000);

      const b = environment();
      expectProblem(await b.call('GET', `/payments/${payment.id}`), 404, 'not-found');
      expectProblem(await b.call('PUT', `/payments/${payment.id}/refund`, { amount: 1 }), 404, 'not-found');
      // Neither provider was ever enabled in b, nor stripe, nor is `adyen` one: 404 for each.
      for (const name of ['sandbox', 'manual', 'stripe', 'adyen'])
        expectProblem(await b.call('PUT', `/paymentproviders/${name}/disable`, {}), 404, 'not-found');
      expect((await b.call('GET', '/payments')).body).toEqual({ items: [], nextPageToken: null });
      expect((await b.call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoiceId}`)}`)).body).toEqual({ items: [], nextPageToken: null });
      expect((await b.call('GET', '/paymentproviders')).body).toEqual({ items: [] });
      // Charging a's invoice from b: b's own provider is enabled, the invoice is not b's.
      await b.enableSandbox();
      expectProblem(await b.pay(secondInvoice, 'tok_success'), 422, 'invoice-not-found');
      expectProblem(await b.pay(invoiceId, 'tok_success'), 422, 'invoice-not-found');
      // a's manual provider was never enabled: 404 there too.
      expectProblem(await a.call('PUT', '/paymentproviders/manual/disable', {}), 404, 'not-found');

      // Nothing of a changed, nothing was charged from b.
      expect((await a.call('GET', `/payments/${payment.id}`)).body).toEqual(payment);
      expect((await a.call('GET', `/invoices/${secondInvoice}`)).body.totalDue).toBe(2_000);
      expect(await b.count('PaymentCreated')).toBe(0);
      expect(await b.charges()).toBe(0);
      expect((await a.call('GET', '/paymentproviders')).body.items).toEqual([expect.objectContaining({ name: 'sandbox', status: 'enabled' })]);
    });

    it('403 forbidden-environment on every payments route with a token that lacks the environment, and nothing is written', async () => {
      const a = environment();
      await a.enableSandbox();
      const invoiceId = await a.bookedInvoice(1_000);
      const payment = (await a.pay(invoiceId, 'tok_success')).body;
      // The payment settles its invoice through a reactor, in its own time: wait for it, it is not a write of these requests.
      await eventually(
        () => a.call('GET', `/invoices/${invoiceId}`),
        (invoice) => invoice.body.totalDue === 0,
        { what: 'the payment settled on its invoice' },
      );
      const other = randomUUID();
      // Booked invoices' documents are recorded by a reactor, in its own time: not a write of these requests.
      const events = async () =>
        (await t.dataSource.query(`select count(*)::int as n from events where environment_id = $1 and stream_type <> 'invoice-document'`, [a.id]))[0].n;
      const before = await events();
      const routes: Array<[string, string, unknown]> = [
        ['GET', '/payments', undefined],
        ['GET', `/payments/${payment.id}`, undefined],
        ['PUT', `/payments/${payment.id}/refund`, { amount: 1 }],
        ['POST', '/payments', { invoiceId: await a.bookedInvoice(500), paymentMethod: { provider: 'sandbox', token: 'tok_success' } }],
        ['POST', '/paymentproviders/enable', { name: 'manual', credentials: null }],
        ['GET', '/paymentproviders', undefined],
        ['PUT', '/paymentproviders/sandbox/disable', {}],
      ];
      const afterInvoice = await events();
      expect(afterInvoice).toBeGreaterThan(before);
      for (const [method, path, body] of routes) {
        const forbidden = await t.request(method, path, { environment: a.id, token: t.token([other]), body });
        expect({ method, path, status: forbidden.status, type: forbidden.body?.type }).toEqual({
          method,
          path,
          status: 403,
          type: '/problems/forbidden-environment',
        });
      }
      expect(await events()).toBe(afterInvoice);
      expect((await a.call('GET', `/payments/${payment.id}`)).body.refundedAmount).toBe(0);
    });
  });

  describe('malformed bodies: 422 at the pointer', () => {
    let env: ReturnType<typeof environment>;
    let invoiceId: string;
    beforeAll(async () => {
      env = environment();
      await env.enableSandbox();
      invoiceId = await env.bookedInvoice(1_000);
    });

    it.each<[string, () => unknown, string]>([
      ['paymentMethod missing', () => ({ invoiceId }), '/paymentMethod'],
      ['paymentMethod not an object', () => ({ invoiceId, paymentMethod: 'tok_success' }), '/paymentMethod'],
      ['paymentMethod null', () => ({ invoiceId, paymentMethod: null }), '/paymentMethod'],
      ['token empty', () => ({ invoiceId, paymentMethod: { provider: 'sandbox', token: '' } }), '/paymentMethod/token'],
      ['token missing', () => ({ invoiceId, paymentMethod: { provider: 'sandbox' } }), '/paymentMethod/token'],
      ['token a number', () => ({ invoiceId, paymentMethod: { provider: 'sandbox', token: 42 } }), '/paymentMethod/token'],
      ['token of 501 characters', () => ({ invoiceId, paymentMethod: { provider: 'sandbox', token: 'x'.repeat(501) } }), '/paymentMethod/token'],
      ['provider missing', () => ({ invoiceId, paymentMethod: { token: 'tok_success' } }), '/paymentMethod/provider'],
      ['invoiceId missing', () => ({ paymentMethod: { provider: 'sandbox', token: 'tok_success' } }), '/invoiceId'],
      ['amount a string', () => ({ invoiceId, amount: '100', paymentMethod: { provider: 'sandbox', token: 'tok_success' } }), '/amount'],
      ['an extra property', () => ({ invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' }, currency: 'EUR' }), '/currency'],
      [
        'an extra property of paymentMethod',
        () => ({ invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success', cvc: '123' } }),
        '/paymentMethod/cvc',
      ],
    ])('POST /payments with %s', async (_label, body, pointer) => {
      const refused = await env.call('POST', '/payments', body());
      expect(refused.status).toBe(422);
      expect(refused.body.errors?.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
      for (const error of refused.body.errors) expect(error.detail).toEqual(expect.any(String));
    });

    it('POST /payments with an array or a non-JSON body is refused without a 5xx', async () => {
      const array = await env.call('POST', '/payments', [{ invoiceId }]);
      expect(array.status).toBe(422);
      const broken = await t.request('POST', '/payments', {
        environment: env.id,
        token: t.token([env.id]),
        rawBody: '{"invoiceId":',
        headers: { 'content-type': 'application/json' },
      });
      expect(broken.status).toBeGreaterThanOrEqual(400);
      expect(broken.status).toBeLessThan(500);
    });

    it('an unknown provider is a 422 at /paymentMethod/provider naming the known ones', async () => {
      const refused = await env.call('POST', '/payments', { invoiceId, paymentMethod: { provider: 'adyen', token: 'tok_success' } });
      expectProblem(refused, 422, 'unknown-payment-provider', '/paymentMethod/provider');
      expect(refused.body.errors[0].detail).toContain('sandbox');
    });

    it('nothing was recorded or charged by any of them', async () => {
      expect(await env.count('PaymentCreated')).toBe(0);
      expect(await env.charges()).toBe(0);
      expect((await env.call('GET', `/invoices/${invoiceId}`)).body.totalDue).toBe(1_000);
    });

    it.each<[string, string, unknown, string]>([
      ['refund without amount', 'refund', {}, '/amount'],
      ['refund with an extra property', 'refund', { amount: 1, reason: 'x' }, '/reason'],
      ['refund with a string amount', 'refund', { amount: '1' }, '/amount'],
      ['enable with an extra property', 'enable', { name: 'manual', credentials: null, note: 'x' }, '/note'],
      ['enable without a name', 'enable', { credentials: null }, '/name'],
      ['disable with a property', 'disable', { now: true }, '/now'],
    ])('%s', async (_label, route, body, pointer) => {
      const path =
        route === 'refund'
          ? `/payments/${(await env.pay(await env.bookedInvoice(100), 'tok_success')).body.id}/refund`
          : route === 'enable'
            ? '/paymentproviders/enable'
            : '/paymentproviders/sandbox/disable';
      const refused = await env.call(route === 'enable' ? 'POST' : 'PUT', path, body);
      expect(refused.status).toBe(422);
      expect(refused.body.errors?.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    });

    it('a payment id that is no uuid is a 404 on both payment routes', async () => {
      expectProblem(await env.call('GET', '/payments/not-a-uuid'), 404, 'not-found');
      expectProblem(await env.call('PUT', '/payments/not-a-uuid/refund', { amount: 1 }), 404, 'not-found');
    });
  });

  describe('Idempotency-Key on POST /payments', () => {
    it('the replay answers the same payment byte for byte and charges once', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(3_000);
      const key = randomUUID();
      const first = await env.pay(invoiceId, 'tok_success', { 'idempotency-key': key });
      expect(first.status).toBe(201);
      expect(first.body.status).toBe('succeeded');
      const replay = await env.pay(invoiceId, 'tok_success', { 'idempotency-key': key });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('location')).toBe(`/payments/${first.body.id}`);
      expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(await env.count('PaymentCreated')).toBe(1);
      expect(await env.count('PaymentSucceeded')).toBe(1);
      expect(await env.charges()).toBe(1);
      // The same key for another request is refused, and charges nothing.
      expectProblem(await env.pay(await env.bookedInvoice(100), 'tok_success', { 'idempotency-key': key }), 422, 'idempotency-key-reused');
      expect(await env.count('PaymentCreated')).toBe(1);
      // The invoice was settled once.
      await eventually(
        async () => (await env.call('GET', `/invoices/${invoiceId}`)).body,
        (invoice) => invoice.totalDue === 0,
        { what: 'the invoice to be settled' },
      );
      expect((await env.call('GET', `/invoices/${invoiceId}`)).body.settlements).toEqual([
        expect.objectContaining({ reference: first.body.id, amount: 3_000 }),
      ]);
    });

    it('a declined payment is kept with its key: the replay is the same failure, not a second try', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(3_000);
      const key = randomUUID();
      const first = await env.pay(invoiceId, 'tok_decline', { 'idempotency-key': key });
      expect(first.body).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
      const replay = await env.pay(invoiceId, 'tok_decline', { 'idempotency-key': key });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(await env.count('PaymentCreated')).toBe(1);
      expect(await env.count('PaymentFailed')).toBe(1);
    });

    it('issue 20 #13: twenty concurrent POST /payments, and twenty POST /invoices, with one key: the one that executed is unmarked, every other is a marked replay of it or 409 in flight', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(2_500);
      const concurrently = async (path: string, body: unknown): Promise<TestResponse> => {
        const key = randomUUID();
        const answers = await Promise.all(Array.from({ length: 20 }, () => env.call('POST', path, body, { 'idempotency-key': key })));
        const executed = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
        expect(executed.length).toBe(1);
        for (const answer of answers.filter((a) => a !== executed[0])) {
          if (answer.status === 409) expectProblem(answer, 409, 'idempotency-key-in-flight');
          else expect([answer.status, answer.headers.get('idempotent-replayed'), answer.text]).toEqual([201, 'true', executed[0].text]);
        }
        // Once done, every retry is the replay.
        const after = await env.call('POST', path, body, { 'idempotency-key': key });
        expect([after.status, after.headers.get('idempotent-replayed'), after.text]).toEqual([201, 'true', executed[0].text]);
        return executed[0];
      };
      const payment = await concurrently('/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } });
      expect(payment.body).toMatchObject({ invoiceId, status: 'succeeded' });
      expect([await env.count('PaymentCreated'), await env.charges()]).toEqual([1, 1]);
      const before = await env.count('InvoiceCreated');
      await concurrently('/invoices', {
        customer: { id: randomUUID(), handle: 'C-2', name: 'Acme' },
        currency: 'EUR',
        items: [{ title: 'Plan', quantity: 1, unitAmount: 700 }],
      });
      expect(await env.count('InvoiceCreated')).toBe(before + 1);
    });

    it('five concurrent requests with one key: one payment, one charge; the others replay it or are told it is in flight', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(4_000);
      const key = randomUUID();
      const answers = await Promise.all(Array.from({ length: 5 }, () => env.pay(invoiceId, 'tok_success', { 'idempotency-key': key })));
      const created = answers.filter((a) => a.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
      for (const other of answers.filter((a) => a.status !== 201)) expectProblem(other, 409, 'idempotency-key-in-flight');
      expect(await env.count('PaymentCreated')).toBe(1);
      expect(await env.charges()).toBe(1);
      const after = await env.pay(invoiceId, 'tok_success', { 'idempotency-key': key });
      expect(after.status).toBe(201);
      expect(after.body.id).toBe(created[0].body.id);
    });
  });

  describe('notifications', () => {
    it('a subscribed receiver gets payment_provider.enabled, payment.created, .succeeded, .failed and .refunded; no body carries the secret', async () => {
      const env = environment();
      const receiver = await new Receiver(certificate).start();
      receivers.push(receiver);
      await env.ok('PUT', '/webhooks/subscribe', { url: receiver.url() }, 200);
      const rotated = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
      const enabled = (await env.enableSandbox()).body;
      const rotation = (await env.enableSandbox(rotated)).body;
      await env.ok('POST', '/paymentproviders/enable', { name: 'manual', credentials: null }, 200);
      const invoiceId = await env.bookedInvoice(2_000);
      const failed = (await env.pay(invoiceId, 'tok_insufficient_funds')).body;
      const paid = (await env.pay(invoiceId, 'tok_success')).body;
      // The refund unsettles the invoice: wait until the payment has settled it.
      await eventually(
        async () => (await env.call('GET', `/invoices/${invoiceId}`)).body,
        (invoice) => invoice.totalDue === 0,
        { what: 'the payment to settle the invoice' },
      );
      const refunded = (await env.ok('PUT', `/payments/${paid.id}/refund`, { amount: 500 }, 200)).body;
      const disabled = (await env.ok('PUT', '/paymentproviders/manual/disable', {}, 200)).body;

      const bodies = (until: (all: any[]) => boolean) =>
        eventually(async () => receiver.requests.map((r) => JSON.parse(r.rawBody)), until, { what: 'the notifications' });
      const expectedTypes = [
        'payment_provider.enabled',
        'payment.created',
        'payment.failed',
        'payment.succeeded',
        'payment.refunded',
        'payment_provider.disabled',
      ];
      const all = await bodies(
        (received) => expectedTypes.every((type) => received.some((b) => b.type === type)) && received.filter((b) => b.type === 'payment.created').length >= 2,
      );
      const ofType = (type: string) => all.filter((b) => b.type === type);
      expect(new Set(all.map((b) => b.type).filter((type: string) => type.startsWith('payment')))).toEqual(new Set(expectedTypes));
      // The refund unsettles the invoice: invoicing announces the settlements too.
      expect(all.map((b) => b.type)).toEqual(expect.arrayContaining(['invoice.settlement_added']));
      for (const body of all) expect(body.environmentId).toBe(env.id);

      const enabledBodies = ofType('payment_provider.enabled');
      expect(enabledBodies.map((b) => b.data)).toEqual(expect.arrayContaining([enabled, rotation]));
      expect(enabledBodies.map((b) => b.data.credentialsHint).sort()).toEqual([null, rotated.slice(-4), SECRET.slice(-4)].sort());
      expect(ofType('payment_provider.disabled').map((b) => b.data)).toEqual([disabled]);
      expect(
        ofType('payment.created')
          .map((b) => b.data.id)
          .sort(),
      ).toEqual([failed.id, paid.id].sort());
      for (const created of ofType('payment.created')) expect(created.data.status).toBe('pending');
      expect(ofType('payment.failed').map((b) => b.data)).toEqual([failed]);
      expect(ofType('payment.succeeded').map((b) => b.data)).toEqual([expect.objectContaining({ id: paid.id, status: 'succeeded', refundedAmount: 0 })]);
      expect(ofType('payment.refunded').map((b) => b.data)).toEqual([refunded]);

      for (const request of receiver.requests) {
        for (const secret of [SECRET, rotated]) {
          expect(request.rawBody).not.toContain(secret);
          expect(request.rawBody).not.toContain(secret.slice(11, 27));
          expect(JSON.stringify(request.headers)).not.toContain(secret.slice(11, 27));
        }
      }
    }, 40_000);
  });
});
