import { randomBytes, randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { DEVELOPMENT_JWT_SECRET } from '@billing/platform';
import { createTestDatabase, eventually, TestDatabase } from '@billing/testing';
import { buildService, freePort, killLeftoverServices, ServiceProcess, sleep, startService } from './process-support';

/**
 * Issue: "settlement exactly once (also with the payments worker killed
 * mid-way)". A real service process (api+worker) takes many tok_success
 * payments at once and is killed with SIGKILL once some have succeeded but
 * before every request is answered. A new process resolves what was left
 * pending (the resolver asks the gateway by reference, never charging again)
 * and the settlement reactor catches up; the event store, the payments read
 * model and the sandbox gateway's own charges then show every payment
 * settled exactly once and charged at most once.
 *
 * Both processes share PAYMENTS_ENCRYPTION_KEY (the credentials one process
 * encrypted are what the next one charges with), as any deployment must.
 */
describe('payments across a kill -9 of the process', () => {
  jest.setTimeout(180_000);
  const ENCRYPTION_KEY = `k1:${randomBytes(32).toString('base64')}`;
  const SECRET = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
  let build: ReturnType<typeof buildService>;
  let database: TestDatabase;
  let db: Client;

  beforeAll(async () => {
    build = buildService();
    database = await createTestDatabase();
    db = new Client({ connectionString: database.url });
    await db.connect();
  });

  afterAll(async () => {
    killLeftoverServices();
    await db?.end();
    await database?.drop();
    build?.remove();
  });

  const sql = async <Row = any>(text: string, values: unknown[] = []): Promise<Row[]> => (await db.query(text, values)).rows as Row[];

  async function start(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; baseUrl: string }> {
    const port = await freePort();
    const service = startService(build.main, {
      DATABASE_URL: database.url,
      PORT: String(port),
      PAYMENTS_RESOLVE_AFTER_MS: '1500',
      PAYMENTS_ENCRYPTION_KEY: ENCRYPTION_KEY,
      DATABASE_POOL_SIZE: '6',
      LOG_LEVEL: 'warn',
      ...env,
    });
    await service.waitForReady(60_000);
    return { service, baseUrl: `http://127.0.0.1:${port}` };
  }

  function client(baseUrl: string, environment: string) {
    const token = sign({ environments: [environment] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS256', subject: 'payments-crash', expiresIn: 3600 });
    return async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: any; headers: Headers }> => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'x-environment': environment,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
    };
  }

  async function bookedInvoices(call: ReturnType<typeof client>, count: number, amount: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await call('POST', '/invoices', {
        customer: { id: randomUUID(), handle: `C-${i}`, name: 'Acme' },
        currency: 'EUR',
        items: [{ title: 'Plan', quantity: 1, unitAmount: amount }],
      });
      expect(created.status).toBe(201);
      expect((await call('PUT', `/invoices/${created.body.id}/book`, {})).status).toBe(200);
      ids.push(created.body.id);
    }
    return ids;
  }

  const countEvents = async (environment: string, type: string) =>
    (await sql<{ n: number }>(`select count(*)::int as n from events where environment_id = $1 and event_type = $2`, [environment, type]))[0].n;

  /** Payment streams without a PaymentSucceeded or PaymentFailed. */
  const unresolved = async (environment: string) =>
    (
      await sql<{ n: number }>(
        `select count(*)::int as n from events c where c.environment_id = $1 and c.event_type = 'PaymentCreated'
           and not exists (select 1 from events o where o.environment_id = c.environment_id and o.stream_type = c.stream_type and o.stream_id = c.stream_id
                            and o.event_type in ('PaymentSucceeded', 'PaymentFailed'))`,
        [environment],
      )
    )[0].n;

  async function until(label: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    await eventually(probe, (done) => done, { timeoutMs, what: label });
  }

  it('many concurrent payments, the process killed mid-way: every payment resolved, each success settled exactly once, none charged twice', async () => {
    const PAYMENTS = 60;
    const environment = randomUUID();
    const first = await start({ DATABASE_POOL_SIZE: '30' });
    const call = client(first.baseUrl, environment);
    expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } })).status).toBe(200);
    const invoices = await bookedInvoices(call, PAYMENTS, 2_500);

    // Twelve requests in flight at a time, on a pool that holds them all (with fewer connections than
    // requests in flight the process stops answering altogether: see the last tests of this file).
    let answered = 0;
    const queue = [...invoices];
    const statusesInOrder: Array<number | 'lost'> = [];
    const requests = Array.from({ length: 12 }, async () => {
      for (let invoiceId = queue.shift(); invoiceId; invoiceId = queue.shift()) {
        const status = await call('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }).then(
          (response) => {
            answered++;
            return response.status;
          },
          () => 'lost' as const,
        );
        statusesInOrder.push(status);
        if (status === 'lost') return;
      }
    });
    // Kill it once some payments have succeeded, while requests are still under way.
    for (const started = Date.now(); ; await sleep(2)) {
      if ((await countEvents(environment, 'PaymentSucceeded')) >= 5) break;
      if (Date.now() - started > 30_000) throw new Error('no payment succeeded within 30 s');
    }
    first.service.child.kill('SIGKILL');
    await first.service.exited;
    await Promise.all(requests);
    const statuses = statusesInOrder;
    const atKill = { succeeded: await countEvents(environment, 'PaymentSucceeded'), created: await countEvents(environment, 'PaymentCreated'), answered };
    process.stdout.write(
      `at the kill: ${JSON.stringify(atKill)}, answers ${JSON.stringify(statuses.reduce<Record<string, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {}))}\n`,
    );
    expect(atKill.succeeded).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((status) => status === 'lost').length).toBeGreaterThan(0);
    expect(answered).toBeLessThan(PAYMENTS);
    for (const status of statuses) expect([201, 'lost']).toContain(status);

    // A new process: its worker resolves what is pending, its reactor settles what succeeded.
    const second = await start();
    await until('no payment is pending', async () => (await unresolved(environment)) === 0);
    const succeeded = await sql<{ id: string; invoice_id: string; amount: number }>(
      `select stream_id::text as id, data->>'invoiceId' as invoice_id, (data->>'amount')::int as amount from events where environment_id = $1 and event_type = 'PaymentSucceeded'`,
      [environment],
    );
    const settlementsOf = () =>
      sql<{ stream_id: string; reference: string; amount: number }>(
        `select stream_id::text, data->>'reference' as reference, (data->>'amount')::int as amount from events where environment_id = $1 and event_type = 'InvoiceSettlementAdded'`,
        [environment],
      );
    await until('every success is settled', async () => (await settlementsOf()).length >= succeeded.length, 30_000);
    // Give a duplicate every chance to appear before looking.
    await sleep(2_000);
    const settlements = await settlementsOf();

    // Exactly once: one settlement per succeeded payment, by its id, on its invoice, of its amount; nothing else.
    expect(settlements.map((s) => s.reference).sort()).toEqual(succeeded.map((p) => p.id).sort());
    const byReference = new Map(settlements.map((s) => [s.reference, s]));
    for (const payment of succeeded)
      expect(byReference.get(payment.id)).toEqual({ stream_id: payment.invoice_id, reference: payment.id, amount: payment.amount });
    // No invoice settled twice.
    const perInvoice = new Map<string, number>();
    for (const s of settlements) perInvoice.set(s.stream_id, (perInvoice.get(s.stream_id) ?? 0) + 1);
    expect([...perInvoice.values()].filter((n) => n > 1)).toEqual([]);

    // Every payment is succeeded or failed, in the events and in the read model; one payment per invoice at most.
    const payments = await sql<{ id: string; invoice_id: string; status: string }>(
      `select id::text, invoice_id::text, status from payments where environment_id = $1`,
      [environment],
    );
    expect(payments).toHaveLength(await countEvents(environment, 'PaymentCreated'));
    expect(payments.filter((p) => p.status !== 'succeeded' && p.status !== 'failed')).toEqual([]);
    expect(new Set(payments.map((p) => p.invoice_id)).size).toBe(payments.length);
    expect(
      payments
        .filter((p) => p.status === 'succeeded')
        .map((p) => p.id)
        .sort(),
    ).toEqual(succeeded.map((p) => p.id).sort());

    // The gateway: one charge per payment reference, never one for another reference of the same invoice,
    // and every charge it made is a payment recorded as succeeded (no money taken for a failed payment).
    const charges = await sql<{ reference: string; kind: string; n: number }>(
      `select reference, outcome->>'kind' as kind, count(*) over (partition by reference)::int as n from sandbox_gateway_charges where environment_id = $1`,
      [environment],
    );
    expect(charges.filter((c) => c.n !== 1)).toEqual([]);
    const statusOf = new Map(payments.map((p) => [p.id, p.status]));
    expect(charges.filter((c) => !statusOf.has(c.reference))).toEqual([]);
    expect(charges.filter((c) => c.kind === 'succeeded' && statusOf.get(c.reference) !== 'succeeded')).toEqual([]);
    expect(
      charges
        .filter((c) => c.kind === 'succeeded')
        .map((c) => c.reference)
        .sort(),
    ).toEqual(succeeded.map((p) => p.id).sort());

    // Over HTTP too: nothing pending, and every invoice is either settled by its one payment or still wholly due.
    const call2 = client(second.baseUrl, environment);
    expect((await call2('GET', `/payments?filter=${encodeURIComponent('status eq pending')}`)).body.items).toEqual([]);
    const settledIds = new Set(succeeded.map((p) => p.invoice_id));
    for (const invoiceId of invoices) {
      const invoice = (await call2('GET', `/invoices/${invoiceId}`)).body;
      expect({ invoiceId, totalDue: invoice.totalDue }).toEqual({ invoiceId, totalDue: settledIds.has(invoiceId) ? 0 : 2_500 });
    }
    second.service.child.kill('SIGTERM');
    await second.service.exited;
  });

  it('a keyed payment whose process dies after the charge but before the answer: the retry with its key charges nothing again', async () => {
    const environment = randomUUID();
    const first = await start();
    const call = client(first.baseUrl, environment);
    expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } })).status).toBe(200);
    const [invoiceId] = await bookedInvoices(call, 1, 1_000);
    const key = randomUUID();
    const body = { invoiceId, amount: 400, paymentMethod: { provider: 'sandbox', token: 'tok_success' } };

    const blocker = new Client({ connectionString: database.url });
    await blocker.connect();
    try {
      // The key is looked up (a read) before the payment and stored (an insert) after it: holding inserts into
      // idempotency_keys lets the payment be charged and recorded while its key and answer never are.
      await blocker.query('begin');
      await blocker.query('lock table idempotency_keys in exclusive mode');
      const answer = call('POST', '/payments', body, { 'idempotency-key': key }).then(
        (r) => r.status,
        () => 'lost' as const,
      );
      await until('the payment succeeded', async () => (await countEvents(environment, 'PaymentSucceeded')) === 1, 10_000);
      await sleep(300);
      const [keys] = await sql<{ n: number }>(`select count(*)::int as n from idempotency_keys where environment_id = $1`, [environment]);
      // The precondition of this test: charged and recorded, not answered, no key.
      expect({ charges: await chargesOf(environment), keys: keys.n }).toEqual({ charges: 1, keys: 0 });
      first.service.child.kill('SIGKILL');
      await first.service.exited;
      expect(await answer).toBe('lost');
    } finally {
      await blocker.query('rollback').catch(() => undefined);
      await blocker.end().catch(() => undefined);
    }
    const [paymentId] = (
      await sql<{ id: string }>(`select stream_id::text as id from events where environment_id = $1 and event_type = 'PaymentSucceeded'`, [environment])
    ).map((r) => r.id);

    // The client retries with the same key, as Idempotency-Key is meant for.
    const second = await start();
    const retry = await client(second.baseUrl, environment)('POST', '/payments', body, { 'idempotency-key': key });
    const outcome = { status: retry.status, paymentCreated: await countEvents(environment, 'PaymentCreated'), charges: await chargesOf(environment) };
    second.service.child.kill('SIGTERM');
    await second.service.exited;
    // The committed payment, not a second one: one PaymentCreated, one charge at the gateway.
    expect(outcome).toEqual({ status: 201, paymentCreated: 1, charges: 1 });
    expect(retry.body.id).toBe(paymentId);
  });

  it('a payment whose process dies after recording it but before the gateway saw it: charged by the resolver under the same reference, never failed', async () => {
    const environment = randomUUID();
    const first = await start();
    const call = client(first.baseUrl, environment);
    expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } })).status).toBe(200);
    const [invoiceId] = await bookedInvoices(call, 1, 1_800);

    const blocker = new Client({ connectionString: database.url });
    await blocker.connect();
    try {
      // The sandbox gateway reads its charges, then records the new one: holding inserts there stops the charge
      // before the gateway has it, while the payment is recorded pending already.
      await blocker.query('begin');
      await blocker.query('lock table sandbox_gateway_charges in exclusive mode');
      const answer = call('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }).then(
        (r) => r.status,
        () => 'lost' as const,
      );
      const waitingInsert = `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into sandbox_gateway_charges%'`;
      await until('the charge waits for the gateway', async () => (await sql(waitingInsert)).length === 1, 10_000);
      first.service.child.kill('SIGKILL');
      await first.service.exited;
      expect(await answer).toBe('lost');
      // The killed process's statement must not outlive it: the gateway never got the charge.
      await sql(`select pg_terminate_backend(pid) from (${waitingInsert}) w`);
    } finally {
      await blocker.query('rollback').catch(() => undefined);
      await blocker.end().catch(() => undefined);
    }
    const [paymentId] = (
      await sql<{ id: string }>(`select stream_id::text as id from events where environment_id = $1 and event_type = 'PaymentCreated'`, [environment])
    ).map((r) => r.id);
    expect({ charges: await chargesOf(environment), unresolved: await unresolved(environment) }).toEqual({ charges: 0, unresolved: 1 });

    // A new process: its resolver finds no charge at the gateway and makes it, under the payment's own reference.
    const second = await start();
    await until('the payment resolved', async () => (await unresolved(environment)) === 0);
    const call2 = client(second.baseUrl, environment);
    const invoice = await eventually(
      async () => (await call2('GET', `/invoices/${invoiceId}`)).body,
      (read) => read.totalDue === 0,
      { what: 'the invoice settled' },
    );
    const outcome = {
      payment: (await call2('GET', `/payments/${paymentId}`)).body.status,
      failed: await countEvents(environment, 'PaymentFailed'),
      charges: await sql(`select reference::text, outcome->>'kind' as kind from sandbox_gateway_charges where environment_id = $1`, [environment]),
      settlements: invoice.settlements.map((settlement: any) => settlement.reference),
    };
    second.service.child.kill('SIGTERM');
    await second.service.exited;
    expect(outcome).toEqual({ payment: 'succeeded', failed: 0, charges: [{ reference: paymentId, kind: 'succeeded' }], settlements: [paymentId] });
  });

  /**
   * POST /payments records the payment in a transaction that, while holding its connection, reads the
   * provider's stream through the pool (payment-flow.ts, record → providerState); with an Idempotency-Key
   * the key's transaction holds one more connection for the whole flow. As many requests as the pool has
   * connections then hold them all, each waiting for one more.
   */
  it.each([
    ['without Idempotency-Key', false],
    ['with Idempotency-Key', true],
  ])('six times as many concurrent payments (%s) as the connection pool holds: all are answered', async (_label, keyed) => {
    const environment = randomUUID();
    const { service, baseUrl } = await start({ DATABASE_POOL_SIZE: '4' });
    const call = client(baseUrl, environment);
    expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } })).status).toBe(200);
    const invoices = await bookedInvoices(call, 24, 500);
    const answers = await Promise.all(
      invoices.map((invoiceId) =>
        Promise.race([
          call(
            'POST',
            '/payments',
            { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } },
            keyed ? { 'idempotency-key': randomUUID() } : {},
          ).then(
            (r) => r.status,
            () => 'lost',
          ),
          sleep(20_000).then(() => 'no answer within 20 s'),
        ]),
      ),
    );
    const health = await Promise.race([fetch(`${baseUrl}/health/ready`).then((r) => r.status), sleep(5_000).then(() => 'no answer within 5 s')]);
    if (answers.some((answer) => answer !== 201)) {
      // What the process's connections are doing while it does not answer.
      const activity = await sql(
        `select state, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as query, count(*)::int as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() group by 1, 2 order by 3 desc`,
      );
      process.stdout.write(`${keyed ? 'keyed' : 'unkeyed'}: connections while stuck: ${JSON.stringify(activity)}\n`);
    }
    service.child.kill('SIGKILL');
    await service.exited;
    expect({ answers, health }).toEqual({ answers: invoices.map(() => 201), health: 200 });
  });

  async function chargesOf(environment: string): Promise<number> {
    return (await sql<{ n: number }>(`select count(*)::int as n from sandbox_gateway_charges where environment_id = $1`, [environment]))[0].n;
  }
});
