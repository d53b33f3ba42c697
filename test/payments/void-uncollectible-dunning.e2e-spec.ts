import { randomUUID } from 'node:crypto';
import { environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { collectingSubscription } from './collection-kit';

/**
 * Void and uncollectible invoices and dunning, on the test clock: voiding or
 * marking an invoice stops its collection at once (no further charge at the
 * sandbox gateway however far the clock goes), and the dunning settings'
 * afterLastFailure says what follows a collection that gives up.
 */
describe('Dunning stops for void and uncollectible invoices; afterLastFailure', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  const until = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => eventually(read, done, { what });

  /** A subscription's first invoice, booked on 2026-02-01 and tried once with `token`. */
  async function collectedInvoice(token: string, settings?: { retryDays: number[]; afterLastFailure?: string }) {
    const id = randomUUID();
    const call = environmentCall(t, id);
    const subscription = await collectingSubscription(call, { secretKey: 'sk_sandbox_void1234', token, settings });
    await call('POST', '/test-clock/advance', { to: '2026-02-01T00:00:00.000Z' }, 200);
    const invoiceId = (await call('GET', '/invoices', undefined, 200)).body.items[0].id as string;
    const payments = async () => (await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoiceId}`)}`, undefined, 200)).body.items as any[];
    /** The charges the sandbox gateway was asked to make in the environment. */
    const charges = async () => Number((await t.dataSource.query(`select count(*) from sandbox_gateway_charges where environment_id = $1`, [id]))[0].count);
    const collection = async () =>
      (await t.dataSource.query(`select state from payment_collections where environment_id = $1 and invoice_id = $2`, [id, invoiceId]))[0]?.state;
    const invoice = async () => (await call('GET', `/invoices/${invoiceId}`, undefined, 200)).body;
    return { id, call, subscription, invoiceId, payments, charges, collection, invoice };
  }

  it('voiding an invoice while its retries are scheduled stops them: no further charge once the clock passes every retry day', async () => {
    const env = await collectedInvoice('tok_insufficient_funds');
    await until(env.collection, (c) => c?.status === 'due' && c.attempts === 1, 'the first retry scheduled');
    expect(await env.charges()).toBe(1);

    const voided = await env.call('PUT', `/invoices/${env.invoiceId}/void`, undefined, 200);
    expect(voided.body).toMatchObject({ status: 'void', totalDue: 0 });
    expect(await until(env.collection, (c) => c?.status === 'stopped', 'the collection stopped')).toMatchObject({ nextAttemptAt: null, attempts: 1 });
    const [stopped] = await t.dataSource.query(`select data from events where environment_id = $1 and event_type = 'CollectionStopped'`, [env.id]);
    expect(stopped.data).toMatchObject({ invoiceId: env.invoiceId, reason: 'invoice-void' });

    await env.call('POST', '/test-clock/advance', { to: '2026-02-10T00:00:00.000Z' }, 200);
    expect(await env.charges()).toBe(1);
    expect(await env.payments()).toHaveLength(1);
    expect(await env.invoice()).toMatchObject({ status: 'void', totalDue: 0 });
  });

  it('marking an invoice uncollectible stops its retries; a later manual payment settles it and clears the mark', async () => {
    const env = await collectedInvoice('tok_insufficient_funds');
    await until(env.collection, (c) => c?.status === 'due' && c.attempts === 1, 'the first retry scheduled');
    expect((await env.call('PUT', `/invoices/${env.invoiceId}/mark-uncollectible`, undefined, 200)).body).toMatchObject({
      uncollectible: true,
      totalDue: 2500,
    });
    await until(env.collection, (c) => c?.status === 'stopped', 'the collection stopped');
    await env.call('POST', '/test-clock/advance', { to: '2026-02-10T00:00:00.000Z' }, 200);
    expect(await env.charges()).toBe(1);

    await env.call('POST', '/paymentproviders/enable', { name: 'manual', credentials: null }, 200);
    await env.call('POST', '/payments', { invoiceId: env.invoiceId, paymentMethod: { provider: 'manual', token: 'transfer-1' } }, 201);
    const settled = await until(env.invoice, (invoice) => invoice.settlementStatus === 'settled', 'the manual payment settling the invoice');
    expect(settled).toMatchObject({ status: 'booked', totalDue: 0, uncollectible: false });
    expect(await env.charges()).toBe(1);
  });

  it('a collected (paid) subscription invoice is neither voided nor marked uncollectible', async () => {
    const env = await collectedInvoice('tok_success');
    await until(env.invoice, (invoice) => invoice.settlementStatus === 'settled', 'the invoice collected');
    expectProblem(await env.call('PUT', `/invoices/${env.invoiceId}/void`), 409, 'invoice-paid');
    expectProblem(await env.call('PUT', `/invoices/${env.invoiceId}/mark-uncollectible`), 409, 'invoice-nothing-due');
  });

  it('afterLastFailure leave_open (the default): the invoice stays open and payable, the subscription active', async () => {
    const env = await collectedInvoice('tok_decline');
    await until(env.collection, (c) => c?.status === 'failed', 'the collection given up');
    expect((await env.call('GET', '/paymentsettings', undefined, 200)).body.afterLastFailure).toBe('leave_open');
    // The reactor has read past CollectionFailed before asserting it did nothing.
    const [failed] = await t.dataSource.query(`select global_position from events where environment_id = $1 and event_type = 'CollectionFailed'`, [env.id]);
    await until(
      async () => (await t.dataSource.query(`select global_position from projection_checkpoints where name = 'payments.after-last-failure'`))[0],
      (checkpoint) => BigInt(checkpoint?.global_position ?? 0) >= BigInt(failed.global_position),
      'the after-last-failure reactor past CollectionFailed',
    );
    expect(await env.invoice()).toMatchObject({ status: 'booked', uncollectible: false, totalDue: 2500 });
    expect((await env.call('GET', `/subscriptions/${env.subscription.id}`, undefined, 200)).body.status).toBe('active');
  });

  it('afterLastFailure mark_uncollectible: once the last retry fails, the invoice is marked uncollectible (invoice.marked_uncollectible queued)', async () => {
    const env = await collectedInvoice('tok_insufficient_funds', { retryDays: [1], afterLastFailure: 'mark_uncollectible' });
    await env.call('PUT', '/webhooks/subscribe', { url: 'https://example.com/hooks/dunning' }, 200);
    await until(env.collection, (c) => c?.status === 'due' && c.attempts === 1, 'the retry scheduled');
    expect((await env.invoice()).uncollectible).toBe(false);
    await env.call('POST', '/test-clock/advance', { to: '2026-02-02T00:00:00.000Z' }, 200);
    await until(env.collection, (c) => c?.status === 'failed', 'the collection given up');
    expect(await until(env.invoice, (invoice) => invoice.uncollectible, 'the invoice marked uncollectible')).toMatchObject({
      status: 'booked',
      totalDue: 2500,
    });
    const [marked] = await t.dataSource.query(`select metadata from events where environment_id = $1 and event_type = 'InvoiceMarkedUncollectible'`, [env.id]);
    expect(marked.metadata).toMatchObject({ actor: 'system:payments' });
    const queued = await until(
      async () => t.dataSource.query(`select data from webhook_notifications where environment_id = $1 and type = 'invoice.marked_uncollectible'`, [env.id]),
      (rows: any[]) => rows.length === 1,
      'invoice.marked_uncollectible queued',
    );
    expect(queued[0].data).toMatchObject({ id: env.invoiceId, uncollectible: true });
    expect((await env.call('GET', `/subscriptions/${env.subscription.id}`, undefined, 200)).body.status).toBe('active');
    expect(await env.charges()).toBe(2);
  });

  it('afterLastFailure cancel_subscription: a hard decline gives up and cancels the subscription through its cancel command', async () => {
    const env = await collectedInvoice('tok_decline', { retryDays: [1, 3], afterLastFailure: 'cancel_subscription' });
    expect((await env.call('GET', '/paymentsettings', undefined, 200)).body).toEqual({
      retryDays: [1, 3],
      paymentTermsDays: 0,
      afterLastFailure: 'cancel_subscription',
    });
    await until(env.collection, (c) => c?.status === 'failed', 'the collection given up');
    const cancelled = await until(
      async () => (await env.call('GET', `/subscriptions/${env.subscription.id}`, undefined, 200)).body,
      (subscription) => subscription.status === 'cancelled',
      'the subscription cancelled',
    );
    expect(cancelled.cancelAt).toBe('2026-02-28');
    expect(await env.invoice()).toMatchObject({ status: 'booked', uncollectible: false, totalDue: 2500 });
  });

  it('refuses an unknown afterLastFailure with a 422 at /afterLastFailure', async () => {
    const call = environmentCall(t, randomUUID());
    expectProblem(await call('PUT', '/paymentsettings', { retryDays: [1], afterLastFailure: 'void' }), 422, 'validation-failed', '/afterLastFailure');
  });
});
