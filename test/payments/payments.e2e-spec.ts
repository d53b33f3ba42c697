import { randomUUID } from 'node:crypto';
import { eventually, expectProblem, startTestApp, TestApp } from '@billing/testing';

/**
 * Payments over HTTP against real Postgres: providers and their credentials,
 * every sandbox token's outcome, the settlement of the invoice exactly once,
 * refunds and their bounds under concurrency, the resolver of unknown
 * outcomes, listing, and environments.
 */
describe('Payments', () => {
  const SECRET = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { PAYMENTS_RESOLVE_AFTER_MS: '300' } });
  });
  afterAll(() => t.close());

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = (method: string, path: string, body?: unknown) => t.request(method, path, { ...options, body });
    return {
      id,
      call,
      async enableSandbox() {
        const enabled = await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } });
        expect(enabled.status).toBe(200);
        return enabled;
      },
      /** A booked invoice of `amount` (one line, no tax). */
      async bookedInvoice(amount = 10_000): Promise<string> {
        const created = await call('POST', '/invoices', {
          customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' },
          currency: 'EUR',
          items: [{ title: 'Plan', quantity: 1, unitAmount: amount }],
        });
        expect(created.status).toBe(201);
        expect((await call('PUT', `/invoices/${created.body.id}/book`, {})).status).toBe(200);
        return created.body.id;
      },
      pay(invoiceId: string, token: string, amount?: number) {
        return call('POST', '/payments', { invoiceId, ...(amount === undefined ? {} : { amount }), paymentMethod: { provider: 'sandbox', token } });
      },
      async invoiceSettles(invoiceId: string, totalDue: number): Promise<any> {
        const read = async () => (await call('GET', `/invoices/${invoiceId}`)).body;
        return eventually(read, (invoice) => invoice.totalDue === totalDue, { what: `invoice ${invoiceId} at totalDue ${totalDue}` });
      },
    };
  }

  describe('providers', () => {
    it('enables sandbox with a hint of its secret, never the secret; rotation replaces it; disable', async () => {
      const env = environment();
      const enabled = await env.enableSandbox();
      expect(enabled.body).toEqual({
        id: expect.any(String),
        name: 'sandbox',
        status: 'enabled',
        credentialsHint: SECRET.slice(-4),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(enabled.text).not.toContain(SECRET);
      const rotated = await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_rotated-key-9999' } });
      expect(rotated.body).toMatchObject({ id: enabled.body.id, credentialsHint: '9999', status: 'enabled' });
      expect((await env.call('GET', '/paymentproviders')).body.items).toEqual([rotated.body]);
      const disabled = await env.call('PUT', '/paymentproviders/sandbox/disable', {});
      expect(disabled.body).toMatchObject({ status: 'disabled' });
      expectProblem(await env.pay(await env.bookedInvoice(), 'tok_success'), 422, 'payment-provider-not-enabled');
    });

    it('refuses an unknown provider (listing the known ones) and credentials that do not fit', async () => {
      const env = environment();
      const unknown = await env.call('POST', '/paymentproviders/enable', { name: 'adyen', credentials: {} });
      expectProblem(unknown, 422, 'unknown-payment-provider');
      expect(unknown.body.errors[0]).toMatchObject({ pointer: '/name' });
      expect(unknown.body.errors[0].detail).toContain('sandbox');
      const bad = await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'pk_live_x' } });
      expectProblem(bad, 422, 'validation-failed');
      expect(bad.body.errors[0].pointer).toBe('/credentials/secretKey');
      expect(bad.text).not.toContain('pk_live_x');
      expectProblem(await env.call('POST', '/paymentproviders/enable', { name: 'manual', credentials: { secretKey: 'x' } }), 422, 'validation-failed');
      expectProblem(await env.call('PUT', '/paymentproviders/sandbox/disable', {}), 404, 'not-found');
    });

    it('keeps the secret out of every event row, read model row and response', async () => {
      const env = environment();
      await env.enableSandbox();
      const [events] = await t.dataSource.query(
        `select count(*)::int as n from events where environment_id = $1 and (data::text like $2 or metadata::text like $2)`,
        [env.id, `%${SECRET}%`],
      );
      expect(events.n).toBe(0);
      const [providers] = await t.dataSource.query(`select count(*)::int as n from payment_providers where state::text like $1`, [`%${SECRET}%`]);
      expect(providers.n).toBe(0);
      const [hint] = await t.dataSource.query(
        `select data->>'credentialsHint' as hint, data->'credentials' ? 'ciphertext' as encrypted from events where environment_id = $1 and event_type = 'PaymentProviderEnabled'`,
        [env.id],
      );
      expect(hint).toEqual({ hint: SECRET.slice(-4), encrypted: true });
    });
  });

  describe('charging an invoice', () => {
    it('tok_success: succeeded, and the invoice is settled by it exactly once (reference = payment id)', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(10_000);
      const paid = await env.pay(invoiceId, 'tok_success');
      expect(paid.status).toBe(201);
      expect(paid.body).toMatchObject({
        invoiceId,
        amount: 10_000,
        currency: 'EUR',
        status: 'succeeded',
        provider: 'sandbox',
        failureCode: null,
        refundedAmount: 0,
        refunds: [],
      });
      expect(paid.body.providerReference).toMatch(/^sbx_/);
      expect(paid.headers.get('location')).toBe(`/payments/${paid.body.id}`);
      const invoice = await env.invoiceSettles(invoiceId, 0);
      expect(invoice.settlementStatus).toBe('settled');
      expect(invoice.settlements).toEqual([expect.objectContaining({ amount: 10_000, reference: paid.body.id })]);
      expectProblem(await env.pay(invoiceId, 'tok_success'), 422, 'invoice-not-payable');
    });

    it.each([
      ['tok_decline', 'card_declined'],
      ['tok_insufficient_funds', 'insufficient_funds'],
      ['tok_gateway_error', 'gateway_unreachable'],
    ])('%s: failed with %s, and the invoice stays due', async (token, code) => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(5_000);
      const failed = await env.pay(invoiceId, token);
      expect(failed.status).toBe(201);
      expect(failed.body).toMatchObject({ status: 'failed', failureCode: code });
      expect(failed.body.failureMessage).toEqual(expect.any(String));
      expect((await env.call('GET', `/invoices/${invoiceId}`)).body.totalDue).toBe(5_000);
      // Nothing pending: the invoice can be paid again.
      expect((await env.pay(invoiceId, 'tok_success')).body.status).toBe('succeeded');
    });

    it('tok_timeout: pending; a second payment meanwhile is a 409; the resolver asks the gateway and it succeeds, settled once', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(7_000);
      const pending = await env.pay(invoiceId, 'tok_timeout');
      expect(pending.status).toBe(201);
      expect(pending.body.status).toBe('pending');
      expectProblem(await env.pay(invoiceId, 'tok_success'), 409, 'payment-pending');
      const payment = await eventually(
        async () => (await env.call('GET', `/payments/${pending.body.id}`)).body,
        (read) => read.status !== 'pending',
        { what: 'the payment to resolve' },
      );
      expect(payment).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^sbx_/) });
      const invoice = await env.invoiceSettles(invoiceId, 0);
      expect(invoice.settlements).toHaveLength(1);
    });

    it('refuses what cannot be charged: unknown, draft or foreign invoices, amounts beyond the total due', async () => {
      const env = environment();
      await env.enableSandbox();
      expectProblem(await env.pay(randomUUID(), 'tok_success'), 422, 'invoice-not-found');
      const draft = await env.call('POST', '/invoices', {
        customer: { id: randomUUID(), handle: null, name: null },
        currency: 'EUR',
        items: [{ title: 'A', quantity: 1, unitAmount: 100 }],
      });
      expectProblem(await env.pay(draft.body.id, 'tok_success'), 422, 'invoice-not-booked');
      const invoiceId = await env.bookedInvoice(1_000);
      expectProblem(await env.pay(invoiceId, 'tok_success', 1_001), 422, 'amount-exceeds-total-due');
      expectProblem(await env.pay(invoiceId, 'tok_success', 0), 422, 'validation-failed');
      const other = environment();
      await other.enableSandbox();
      expectProblem(await other.pay(invoiceId, 'tok_success'), 422, 'invoice-not-found');
      // A partial payment leaves the rest due.
      expect((await env.pay(invoiceId, 'tok_success', 400)).body).toMatchObject({ status: 'succeeded', amount: 400 });
      await env.invoiceSettles(invoiceId, 600);
    });
  });

  describe('refunds', () => {
    it('ten concurrent refunds of 30 on a payment of 100: exactly three succeed, and the invoice is unsettled by 90', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(100);
      const payment = (await env.pay(invoiceId, 'tok_success')).body;
      await env.invoiceSettles(invoiceId, 0);
      const answers = await Promise.all(Array.from({ length: 10 }, () => env.call('PUT', `/payments/${payment.id}/refund`, { amount: 30 })));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
      for (const refused of answers.filter((a) => a.status !== 200)) expect([409, 422]).toContain(refused.status);
      const after = (await env.call('GET', `/payments/${payment.id}`)).body;
      expect(after.refundedAmount).toBe(90);
      expect(after.refunds).toHaveLength(3);
      expect(after.refunds).toEqual(
        Array.from({ length: 3 }, () => expect.objectContaining({ amount: 30, status: 'succeeded', providerReference: expect.stringMatching(/^sbx_re_/) })),
      );
      // Every refund went to the gateway, once: its own records agree.
      const [gateway] = await t.dataSource.query(
        `select count(*)::int as n, sum(amount)::int as total from sandbox_gateway_refunds where environment_id = $1 and charge_reference = $2 and outcome->>'kind' = 'succeeded'`,
        [env.id, payment.id],
      );
      expect(gateway).toEqual({ n: 3, total: 90 });
      await env.invoiceSettles(invoiceId, 90);
    });

    it('no answer in time (a tok_timeout charge): 200 with the refund pending and reserved; the resolver looks it up, never refunding twice; unsettled once', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(1_000);
      const pending = (await env.pay(invoiceId, 'tok_timeout')).body;
      const payment = await eventually(
        async () => (await env.call('GET', `/payments/${pending.id}`)).body,
        (read) => read.status !== 'pending',
        { what: 'the payment to resolve' },
      );
      expect(payment.status).toBe('succeeded');
      await env.invoiceSettles(invoiceId, 0);
      const refunding = await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 600 });
      expect(refunding.status).toBe(200);
      expect(refunding.body).toMatchObject({ refundedAmount: 0, refunds: [{ amount: 600, status: 'pending', providerReference: null }] });
      // Reserved: only 400 is left to refund meanwhile.
      const beyond = await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 401 });
      expectProblem(beyond, 422, 'refund-exceeds-payment');
      expect(beyond.body.errors[0].detail).toContain('pending');
      const refunded = await eventually(
        async () => (await env.call('GET', `/payments/${payment.id}`)).body,
        (read) => read.refunds[0].status !== 'pending',
        { what: 'the refund to resolve' },
      );
      expect(refunded).toMatchObject({
        refundedAmount: 600,
        refunds: [{ id: refunding.body.refunds[0].id, status: 'succeeded', providerReference: expect.stringMatching(/^sbx_re_/) }],
      });
      const invoice = await env.invoiceSettles(invoiceId, 600);
      expect(invoice.settlements.filter((settlement: { amount: number }) => settlement.amount < 0)).toEqual([
        expect.objectContaining({ amount: -600, reference: refunding.body.refunds[0].id }),
      ]);
      const [gateway] = await t.dataSource.query(`select count(*)::int as n from sandbox_gateway_refunds where environment_id = $1`, [env.id]);
      expect(gateway.n).toBe(1);
    });

    it('the gateway refuses (it has no such charge): 200 with the refund failed, nothing refunded, the amount refundable again, payment.refund_failed', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(800);
      const payment = (await env.pay(invoiceId, 'tok_success')).body;
      await env.invoiceSettles(invoiceId, 0);
      // As if the charge had been made elsewhere: the gateway does not know it.
      await t.dataSource.query(`delete from sandbox_gateway_charges where environment_id = $1 and reference = $2`, [env.id, payment.id]);
      const refused = await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 800 });
      expect(refused.status).toBe(200);
      expect(refused.body).toMatchObject({
        refundedAmount: 0,
        refunds: [{ amount: 800, status: 'failed', failureCode: 'charge_not_found', failureMessage: expect.any(String) }],
      });
      const [event] = await t.dataSource.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'PaymentRefundFailed'`, [
        env.id,
      ]);
      expect(event.n).toBe(1);
      expect((await env.call('GET', `/invoices/${invoiceId}`)).body.totalDue).toBe(0);
      // Nothing was refunded, so all of it may be asked for again (and is refused again by this gateway).
      expect((await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 800 })).body.refunds).toHaveLength(2);
    });

    it('an Idempotency-Key retried, also concurrently, answers the same refund: refunded once at the gateway', async () => {
      const env = environment();
      await env.enableSandbox();
      const invoiceId = await env.bookedInvoice(1_000);
      const payment = (await env.pay(invoiceId, 'tok_success')).body;
      const keyed = () =>
        t.request('PUT', `/payments/${payment.id}/refund`, {
          environment: env.id,
          token: t.token([env.id]),
          body: { amount: 250 },
          headers: { 'idempotency-key': `refund-${payment.id}` },
        });
      const answers = await Promise.all(Array.from({ length: 5 }, keyed));
      const again = await keyed();
      for (const answer of [...answers, again]) expect(answer.status).toBe(200);
      const ids = new Set([...answers, again].flatMap((answer) => answer.body.refunds.map((refund: { id: string }) => refund.id)));
      expect(ids.size).toBe(1);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect((await env.call('GET', `/payments/${payment.id}`)).body).toMatchObject({ refundedAmount: 250, refunds: [{ amount: 250, status: 'succeeded' }] });
      const [gateway] = await t.dataSource.query(`select count(*)::int as n from sandbox_gateway_refunds where environment_id = $1`, [env.id]);
      expect(gateway.n).toBe(1);
      await env.invoiceSettles(invoiceId, 250);
    });

    it('bounds: the refundable amount exactly, then one more is a 422 naming what is left; a failed payment is a 409', async () => {
      const env = environment();
      await env.enableSandbox();
      const payment = (await env.pay(await env.bookedInvoice(500), 'tok_success')).body;
      expect((await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 200 })).body.refundedAmount).toBe(200);
      const beyond = await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 301 });
      expectProblem(beyond, 422, 'refund-exceeds-payment');
      expect(beyond.body.errors[0]).toMatchObject({ pointer: '/amount', detail: expect.stringContaining('300') });
      expect((await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 300 })).body.refundedAmount).toBe(500);
      expectProblem(await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 1 }), 422, 'refund-exceeds-payment');
      expectProblem(await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 1.5 }), 422, 'validation-failed');
      const failed = (await env.pay(await env.bookedInvoice(500), 'tok_decline')).body;
      expectProblem(await env.call('PUT', `/payments/${failed.id}/refund`, { amount: 1 }), 409, 'payment-not-refundable');
      expectProblem(await env.call('PUT', `/payments/${randomUUID()}/refund`, { amount: 1 }), 404, 'not-found');
    });
  });

  describe('GET /payments', () => {
    it('filters, orders and pages; bad input is a 422 at the parameter', async () => {
      const env = environment();
      await env.enableSandbox();
      const amounts = [100, 300, 200, 500, 400];
      for (const amount of amounts) await env.pay(await env.bookedInvoice(amount), amount === 300 ? 'tok_decline' : 'tok_success');
      const succeeded = await env.call(
        'GET',
        `/payments?filter=${encodeURIComponent('status eq succeeded')}&filter=${encodeURIComponent('amount ge 200')}&orderBy=-Amount`,
      );
      expect(succeeded.status).toBe(200);
      expect(succeeded.body.items.map((p: any) => p.amount)).toEqual([500, 400, 200]);
      const pages: number[] = [];
      let token: string | null = null;
      do {
        const page: any = await env.call('GET', `/payments?orderBy=Amount&limit=2${token ? `&pageToken=${token}` : ''}`);
        pages.push(...page.body.items.map((p: any) => p.amount));
        token = page.body.nextPageToken;
      } while (token);
      expect(pages).toEqual([100, 200, 300, 400, 500]);
      const bad = await env.call('GET', `/payments?filter=${encodeURIComponent('status gt succeeded')}`);
      expectProblem(bad, 422, 'validation-failed');
      expect(bad.body.errors[0].pointer).toBe('/query/filter/0');
      expectProblem(await env.call('GET', '/payments?orderBy=Nope'), 422, 'validation-failed');
      expectProblem(await env.call('GET', '/payments?sort=amount'), 422, 'validation-failed');
      expect((await environment().call('GET', '/payments')).body.items).toEqual([]);
    });
  });

  it('answers 404 for another environment’s payment, and 403 without access to the environment', async () => {
    const env = environment();
    await env.enableSandbox();
    const payment = (await env.pay(await env.bookedInvoice(100), 'tok_success')).body;
    const other = environment();
    expectProblem(await other.call('GET', `/payments/${payment.id}`), 404, 'not-found');
    expectProblem(await other.call('PUT', `/payments/${payment.id}/refund`, { amount: 1 }), 404, 'not-found');
    const forbidden = await t.request('GET', `/payments/${payment.id}`, { environment: env.id, token: t.token([other.id]) });
    expectProblem(forbidden, 403, 'forbidden-environment');
  });
});
