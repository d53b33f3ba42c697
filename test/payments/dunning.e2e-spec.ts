import { randomUUID } from 'node:crypto';
import { budgetFor, environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { collectingSubscription } from './collection-kit';

// The longest scenario awaits nine states (a first try, its retry scheduled, four retries, giving up, and their clock advances).
jest.setTimeout(budgetFor(9));

/**
 * Collecting subscription invoices automatically, driven by the test clock:
 * the invoice the billing engine books is charged with the subscription's
 * payment method; soft declines are retried on the environment's schedule
 * (days after the first failure), a hard decline is not, and a collection that
 * gives up is recorded (invoice.payment_failed) with the invoice unsettled.
 */
describe('Dunning: collecting subscription invoices on the test clock', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  const until = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => eventually(read, done, { what });

  async function subscribedEnvironment(token: string, settings?: { retryDays: number[]; paymentTermsDays?: number; afterLastFailure?: string }) {
    const id = randomUUID();
    const call = environmentCall(t, id);
    const subscription = await collectingSubscription(call, { secretKey: 'sk_sandbox_dunning1234', token, settings });
    expect(subscription.paymentMethod).toEqual({ provider: 'sandbox', tokenHint: expect.any(String) });
    expect(JSON.stringify(subscription)).not.toContain(token);
    await call('POST', '/test-clock/advance', { to: '2026-02-01T00:00:00.000Z' }, 200);
    const invoiceId = (await call('GET', '/invoices', undefined, 200)).body.items[0].id as string;
    const payments = async () =>
      (await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoiceId}`)}&orderBy=CreatedAt`, undefined, 200)).body.items as any[];
    const collection = async () => {
      const [row] = await t.dataSource.query(`select state from payment_collections where environment_id = $1 and invoice_id = $2`, [id, invoiceId]);
      return row?.state;
    };
    return { id, call, subscription, invoiceId, payments, collection };
  }

  it('charges the booked invoice with the payment method: succeeded, and the invoice settled; by default it is due on its date', async () => {
    const env = await subscribedEnvironment('tok_success');
    expect((await env.call('GET', `/invoices/${env.invoiceId}`, undefined, 200)).body).toMatchObject({ date: '2026-02-01', dueDate: '2026-02-01' });
    const [payment] = await until(env.payments, (items) => items.length === 1 && items[0].status === 'succeeded', 'the collection payment');
    expect(payment).toMatchObject({ amount: 2500, provider: 'sandbox' });
    await until(
      async () => (await env.call('GET', `/invoices/${env.invoiceId}`)).body,
      (invoice) => invoice.settlementStatus === 'settled',
      'the invoice settled',
    );
    expect((await until(env.collection, (c) => c?.status === 'succeeded', 'the collection succeeded')).attempts).toBe(1);
  });

  it('issue 41 #3: an advance answers after the first try of the invoices it booked; two advances in a row charge each invoice on its own date', async () => {
    const env = await subscribedEnvironment('tok_success');
    const read = async (invoiceId: string) => (await env.call('GET', `/invoices/${invoiceId}`, undefined, 200)).body;
    // No waiting: the advance to 2026-02-01 answered after the try.
    expect(await read(env.invoiceId)).toMatchObject({ date: '2026-02-01', settlementStatus: 'settled', totalDue: 0 });
    await env.call('POST', '/test-clock/advance', { to: '2026-03-01T00:00:00.000Z' }, 200);
    await env.call('POST', '/test-clock/advance', { to: '2026-03-05T00:00:00.000Z' }, 200);
    const invoices = (await env.call('GET', '/invoices', undefined, 200)).body.items as any[];
    expect(invoices.map((invoice) => invoice.date).sort()).toEqual(['2026-02-01', '2026-03-01']);
    for (const invoice of invoices) {
      expect(await read(invoice.id)).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
      const [payment] = (await env.call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoice.id}`)}`, undefined, 200)).body.items;
      expect(payment).toMatchObject({ status: 'succeeded', attempt: 1, createdAt: `${invoice.date}T00:00:00.000Z` });
    }
  });

  it('retries a soft decline after 1, 3, 5 and 7 days (the test clock), then gives up: invoice.payment_failed, the invoice unsettled', async () => {
    const env = await subscribedEnvironment('tok_insufficient_funds');
    await until(env.payments, (items) => items.length === 1 && items[0].status === 'failed', 'the first try');
    const first = await until(env.collection, (c) => c?.status === 'due' && c.attempts === 1, 'the retry scheduled');
    expect(first.nextAttemptAt).toBe('2026-02-02T00:00:00.000Z');
    for (const [day, tries] of [
      ['2026-02-02', 2],
      ['2026-02-04', 3],
      ['2026-02-06', 4],
      ['2026-02-08', 5],
    ] as const) {
      // Not before the retry is due.
      await env.call('POST', '/test-clock/advance', { to: `${day}T00:00:00.000Z` }, 200);
      await until(env.payments, (items) => items.length === tries && items.every((p) => p.status === 'failed'), `try ${tries}`);
    }
    const failed = await until(env.collection, (c) => c?.status === 'failed', 'the collection given up');
    expect(failed).toMatchObject({ attempts: 5, lastFailureCode: 'insufficient_funds' });
    const [event] = await t.dataSource.query(`select data from events where environment_id = $1 and event_type = 'CollectionFailed'`, [env.id]);
    expect(event.data).toMatchObject({ invoiceId: env.invoiceId, attempts: 5, reason: 'schedule-exhausted' });
    expect((await env.call('GET', `/invoices/${env.invoiceId}`)).body.totalDue).toBe(2500);
    // Nothing more is tried.
    await env.call('POST', '/test-clock/advance', { to: '2026-02-20T00:00:00.000Z' }, 200);
    expect(await env.payments()).toHaveLength(5);
  });

  it('does not retry a hard decline', async () => {
    const env = await subscribedEnvironment('tok_decline');
    await until(env.collection, (c) => c?.status === 'failed', 'the collection given up');
    expect((await env.collection()).lastFailureCode).toBe('card_declined');
    await env.call('POST', '/test-clock/advance', { to: '2026-02-10T00:00:00.000Z' }, 200);
    expect(await env.payments()).toHaveLength(1);
  });

  it("issue 20 #10: each try of a collection is a payment with its attempt number; a subscription invoice is due after the environment's payment terms", async () => {
    const env = await subscribedEnvironment('tok_gateway_error', { retryDays: [1], paymentTermsDays: 14 });
    await until(env.collection, (c) => c?.status === 'due' && c.attempts === 1, 'the retry scheduled');
    await env.call('POST', '/test-clock/advance', { to: '2026-02-02T00:00:00.000Z' }, 200);
    await until(env.collection, (c) => c?.status === 'failed', 'the collection given up after its one retry');
    const payments = await until(env.payments, (items) => items.length === 2 && items.every((p) => p.status === 'failed'), 'both tries failed');
    expect(payments.map((payment) => payment.attempt)).toEqual([1, 2]);
    for (const payment of payments) expect((await env.call('GET', `/payments/${payment.id}`, undefined, 200)).body.attempt).toBe(payment.attempt);
    expect((await env.call('GET', `/invoices/${env.invoiceId}`, undefined, 200)).body).toMatchObject({ date: '2026-02-01', dueDate: '2026-02-15' });
    expect((await env.call('GET', '/paymentsettings', undefined, 200)).body).toEqual({ retryDays: [1], paymentTermsDays: 14, afterLastFailure: 'leave_open' });
  });

  it("follows the environment's schedule", async () => {
    const env = await subscribedEnvironment('tok_gateway_error', { retryDays: [2] });
    const scheduled = await until(env.collection, (c) => c?.status === 'due' && c.attempts === 1, 'the retry scheduled');
    expect(scheduled.nextAttemptAt).toBe('2026-02-03T00:00:00.000Z');
    await env.call('POST', '/test-clock/advance', { to: '2026-02-03T00:00:00.000Z' }, 200);
    await until(env.collection, (c) => c?.status === 'failed', 'the collection given up after its one retry');
    expect(await env.payments()).toHaveLength(2);
    expect((await env.call('GET', '/paymentsettings')).body).toEqual({ retryDays: [2], paymentTermsDays: 0, afterLastFailure: 'leave_open' });
    const bad = await env.call('PUT', '/paymentsettings', { retryDays: [3, 2] });
    expectProblem(bad, 422, 'validation-failed', '/retryDays/1');
    for (const paymentTermsDays of [-1, 366, 1.5, '14']) {
      expectProblem(await env.call('PUT', '/paymentsettings', { retryDays: [2], paymentTermsDays }), 422, 'validation-failed', '/paymentTermsDays');
    }
  });

  it.each([
    ['cancel_subscription', 'a settlement by hand'],
    ['mark_uncollectible', 'a payment with another method'],
  ])(
    'issue 41 #1: afterLastFailure %s; after a decline the customer pays with %s: the collection stops (invoice-settled), no further try, no failure, nothing follows',
    async (afterLastFailure, how) => {
      const env = await subscribedEnvironment('tok_insufficient_funds', { retryDays: [1], afterLastFailure });
      await until(env.collection, (c) => c?.status === 'due' && c.attempts === 1, 'the retry scheduled');
      if (how === 'a settlement by hand') await env.call('POST', `/invoices/${env.invoiceId}/settlements`, { date: '2026-02-01', amount: 2500 }, 201);
      else {
        await env.call('POST', '/paymentproviders/enable', { name: 'manual', credentials: null }, 200);
        await env.call('POST', '/payments', { invoiceId: env.invoiceId, paymentMethod: { provider: 'manual', token: 'transfer-1' } }, 201);
      }
      // Past the last retry's day: whichever comes first, the stop reactor or the engine's try, the collection stops.
      await env.call('POST', '/test-clock/advance', { to: '2026-02-05T00:00:00.000Z' }, 200);
      expect(await until(env.collection, (c) => c?.status === 'stopped', 'the collection stopped')).toMatchObject({ attempts: 1, nextAttemptAt: null });
      const events = await t.dataSource.query(
        `select event_type, data from events where environment_id = $1 and stream_type = 'invoice-collection' order by global_position`,
        [env.id],
      );
      expect(events.map((event: { event_type: string }) => event.event_type)).toEqual([
        'CollectionStarted',
        'CollectionAttemptStarted',
        'CollectionAttemptFailed',
        'CollectionStopped',
      ]);
      expect(events[3].data).toMatchObject({ invoiceId: env.invoiceId, reason: 'invoice-settled' });
      const sandbox = (await env.payments()).filter((payment) => payment.provider === 'sandbox');
      expect(sandbox.map((payment) => payment.status)).toEqual(['failed']);
      expect((await env.call('GET', `/invoices/${env.invoiceId}`, undefined, 200)).body).toMatchObject({
        settlementStatus: 'settled',
        totalDue: 0,
        uncollectible: false,
      });
      expect((await env.call('GET', `/subscriptions/${env.subscription.id}`, undefined, 200)).body).toMatchObject({ status: 'active', cancelAt: null });
    },
  );
});
