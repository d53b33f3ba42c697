import { randomUUID } from 'node:crypto';
import { CollectionEngine } from '@billing/payments';
import { environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { collectingSubscription } from './collection-kit';

/**
 * Issue 41, item 15 (money taken twice): at most one payment of an invoice is
 * under way, whatever path it comes from, and what a succeeded payment took is
 * not due again before its settlement reaches the invoice (a reactor, moments
 * later). Counted at the sandbox gateway itself: its charges table holds what
 * was really charged. A collection try meeting a payment under way makes no
 * charge and records no failure.
 */
describe('One payment of an invoice at a time', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Pending payments stay pending: the collection test below holds one through a test-clock advance.
    t = await startTestApp({ clock: new FakeClock(new Date('2026-01-20T12:00:00.000Z')), env: { PAYMENTS_RESOLVE_AFTER_MS: String(90 * 24 * 3_600_000) } });
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
        expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_one-at-a-time' } })).status).toBe(200);
      },
      async booked(amount: number): Promise<any> {
        const created = await call('POST', '/invoices', {
          customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' },
          currency: 'EUR',
          items: [{ title: 'Plan', quantity: 1, unitAmount: amount }],
        });
        expect(created.status).toBe(201);
        const booked = await call('PUT', `/invoices/${created.body.id}/book`, {});
        expect(booked.status).toBe(200);
        return booked.body;
      },
      pay(invoiceId: string, amount?: number) {
        return call('POST', '/payments', {
          invoiceId,
          ...(amount === undefined ? {} : { amount }),
          paymentMethod: { provider: 'sandbox', token: 'tok_success' },
        });
      },
      /** What the sandbox gateway really charged in this environment, minor units. */
      async charged(): Promise<number> {
        const [row] = await t.dataSource.query(
          `select coalesce(sum((request->>'amount')::bigint), 0)::int as charged from sandbox_gateway_charges where environment_id = $1 and outcome->>'kind' = 'succeeded'`,
          [id],
        );
        return row.charged;
      },
      async settled(invoiceId: string): Promise<any> {
        const read = async () => (await call('GET', `/invoices/${invoiceId}`)).body;
        return eventually(read, (invoice) => invoice.totalDue === 0, { what: `invoice ${invoiceId} settled` });
      },
    };
  }

  /** A payment refused because one is under way (409) or because nothing is left to pay once it succeeded (422). */
  function expectRefused(response: Parameters<typeof expectProblem>[0]): void {
    if (response.status === 409) expectProblem(response, 409, 'payment-pending');
    else expectProblem(response, 422, 'invoice-not-payable');
  }

  it('20 concurrent POST /payments of one invoice: one charge, the others refused', async () => {
    const env = environment();
    await env.enableSandbox();
    const invoice = await env.booked(6_000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => env.pay(invoice.id)));
    const made = answers.filter((answer) => answer.status === 201);
    expect(made).toHaveLength(1);
    expect(made[0].body).toMatchObject({ status: 'succeeded', amount: 6_000 });
    for (const answer of answers.filter((candidate) => candidate.status !== 201)) expectRefused(answer);
    const settled = await env.settled(invoice.id);
    expect(settled.settlements).toHaveLength(1);
    expect(await env.charged()).toBe(6_000);
    // Settled: a further payment is refused as before.
    expectProblem(await env.pay(invoice.id), 422, 'invoice-not-payable');
  });

  it('back-to-back payments: the second is decided on what the first took, before its settlement reaches the invoice', async () => {
    const env = environment();
    await env.enableSandbox();
    const invoices = await Promise.all([1, 2, 3, 4, 5].map(() => env.booked(4_000)));
    for (const invoice of invoices) {
      expect((await env.pay(invoice.id)).body).toMatchObject({ status: 'succeeded', amount: 4_000 });
      expectProblem(await env.pay(invoice.id), 422, 'invoice-not-payable');
    }
    for (const invoice of invoices) expect((await env.settled(invoice.id)).settlements).toHaveLength(1);
    expect(await env.charged()).toBe(5 * 4_000);
  });

  it('a part paid: what is left is due at once, and no more', async () => {
    const env = environment();
    await env.enableSandbox();
    const invoice = await env.booked(6_000);
    expect((await env.pay(invoice.id, 2_500)).body).toMatchObject({ status: 'succeeded', amount: 2_500 });
    const beyond = await env.pay(invoice.id, 3_501);
    expectProblem(beyond, 422, 'amount-exceeds-total-due');
    expect(beyond.body.errors[0]).toMatchObject({ pointer: '/amount', detail: expect.stringContaining('3500') });
    expect((await env.pay(invoice.id)).body).toMatchObject({ status: 'succeeded', amount: 3_500 });
    expectProblem(await env.pay(invoice.id), 422, 'invoice-not-payable');
    expect((await env.settled(invoice.id)).settlements).toHaveLength(2);
    expect(await env.charged()).toBe(6_000);
  });

  it('10 concurrent submits of the hosted page, each with its own nonce: one charge', async () => {
    const env = environment();
    await env.enableSandbox();
    const invoice = await env.booked(4_200);
    const path = new URL(invoice.hostedInvoiceUrl).pathname;
    const submits = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${t.baseUrl}${path}/pay`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ nonce: randomUUID(), provider: 'sandbox', token: 'tok_success' }),
        }),
      ),
    );
    const statuses = submits.map((submit) => submit.status);
    expect(statuses.filter((status) => status === 303)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 303 && status !== 409 && status !== 422)).toEqual([]);
    expect((await env.settled(invoice.id)).settlements).toHaveLength(1);
    expect(await env.charged()).toBe(4_200);
  });

  it("a collection try while a payment of the invoice is under way: not made, no failure; it waits for that payment's outcome", async () => {
    const environmentId = randomUUID();
    const call = environmentCall(t, environmentId);
    await collectingSubscription(call, { secretKey: 'sk_sandbox_one-at-a-time', token: 'tok_insufficient_funds', settings: { retryDays: [1] } });
    await call('POST', '/test-clock/advance', { to: '2026-02-01T12:00:00.000Z' }, 200);
    const collectionEvents = async (): Promise<string[]> =>
      (
        await t.dataSource.query(`select event_type from events where environment_id = $1 and stream_type = 'invoice-collection' order by global_position`, [
          environmentId,
        ])
      ).map((row: { event_type: string }) => row.event_type);
    await eventually(collectionEvents, (types) => types.includes('CollectionAttemptFailed'), { what: 'the first (soft-declined) collection try' });
    const [invoice] = (await call('GET', '/invoices', undefined, 200)).body.items;
    const pending = await call('POST', '/payments', { invoiceId: invoice.id, paymentMethod: { provider: 'sandbox', token: 'tok_timeout' } }, 201);
    expect(pending.body.status).toBe('pending');

    // The retry is due on Feb 2: it waits, not even claimed, while the payment is pending.
    await call('POST', '/test-clock/advance', { to: '2026-02-03T12:00:00.000Z' }, 200);
    const engine = t.app.get(CollectionEngine);
    await engine.catchUp(environmentId, new Date('2026-02-03T12:00:00.000Z'));
    expect(await collectionEvents()).toEqual(['CollectionStarted', 'CollectionAttemptStarted', 'CollectionAttemptFailed']);
    const payments = (await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoice.id}`)}`, undefined, 200)).body.items;
    expect(payments.map((payment: any) => payment.status).sort()).toEqual(['failed', 'pending']);

    // The read model not showing that payment yet, the try is claimed and made: refused before any charge by the
    // payment's own guard (on the log), it neither fails nor is recorded, and waits the same way.
    await t.dataSource.query(`delete from payments where environment_id = $1 and id = $2`, [environmentId, pending.body.id]);
    await engine.catchUp(environmentId, new Date('2026-02-03T12:00:00.000Z'));
    const types = await collectionEvents();
    expect(types).toEqual(['CollectionStarted', 'CollectionAttemptStarted', 'CollectionAttemptFailed', 'CollectionAttemptStarted']);
    const [claimed] = await t.dataSource.query(
      `select count(*)::int as n from events where environment_id = $1 and stream_type = 'payment' and event_type = 'PaymentCreated'`,
      [environmentId],
    );
    expect(claimed.n).toBe(2);
  });
});
