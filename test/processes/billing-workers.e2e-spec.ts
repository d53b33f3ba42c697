import { randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { DEVELOPMENT_JWT_SECRET } from '@billing/platform';
import { createTestDatabase, eventually, TestDatabase } from '@billing/testing';
import { buildService, freePort, killLeftoverServices, ServiceProcess, startService } from './process-support';

/**
 * Issue: "three worker processes billing the same environment after a big
 * advance produce no duplicate and no gap; a kill -9 of the worker
 * mid-catch-up loses nothing and bills nothing twice." Real service
 * processes on one database; the checks read the event store itself.
 */
describe('the billing engine across processes', () => {
  jest.setTimeout(240_000);
  const SUBSCRIPTIONS = 40;
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

  async function api(): Promise<{ service: ServiceProcess; baseUrl: string }> {
    const port = await freePort();
    const service = startService(build.main, { DATABASE_URL: database.url, PORT: String(port), DATABASE_POOL_SIZE: '6', LOG_LEVEL: 'info' });
    await service.waitForReady(60_000);
    return { service, baseUrl: `http://127.0.0.1:${port}` };
  }

  async function worker(): Promise<ServiceProcess> {
    const service = startService(build.main, { DATABASE_URL: database.url, ROLES: 'worker', DATABASE_POOL_SIZE: '6', LOG_LEVEL: 'info' });
    await service.waitForLog((line) => line.msg === 'worker running (no HTTP listener: ROLES has no api)');
    return service;
  }

  function client(baseUrl: string, environment: string) {
    const token = sign({ environments: [environment] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS256', subject: 'billing-test', expiresIn: 3600 });
    return async (method: string, path: string, body?: unknown, expected?: number): Promise<any> => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'x-environment': environment, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (expected !== undefined && response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
  }

  /** An environment with SUBSCRIPTIONS monthly subscriptions starting 2027-01-01 (its clock still on real time). */
  async function seed(call: ReturnType<typeof client>): Promise<void> {
    const product = (await call('POST', '/products', { name: 'Plan' }, 201)).id;
    const price = (
      await call(
        'POST',
        '/prices',
        {
          name: 'Monthly',
          priceModel: 'fee',
          pricing: { eur: { unitAmount: 1000 } },
          purchase: 'recurring',
          termCount: 1,
          termUnit: 'month',
          billingTiming: 'advance',
          productId: product,
        },
        201,
      )
    ).id;
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      await call(
        'POST',
        '/subscriptions',
        {
          customer: { id: randomUUID(), handle: `C-${i}`, name: `Customer ${i}` },
          currency: 'EUR',
          term: { start: '2027-01-01', end: null },
          items: [{ priceId: price }],
        },
        201,
      );
    }
  }

  /** Every billed instant once, every invoice booked once, invoice numbers 1..n without a gap. */
  async function expectExactlyOnce(environment: string, instantsPerSubscription: number): Promise<void> {
    const expected = SUBSCRIPTIONS * instantsPerSubscription;
    const billed = await db.query(
      `select stream_id, data->>'billAt' as bill_at, count(*)::int as n from events
        where environment_id = $1 and event_type = 'SubscriptionBilled' group by 1, 2`,
      [environment],
    );
    expect(billed.rows).toHaveLength(expected);
    expect(billed.rows.every((row) => row.n === 1)).toBe(true);
    const booked = await db.query(
      `select data->>'handle' as handle from events where environment_id = $1 and event_type = 'InvoiceBooked' order by (data->>'handle')`,
      [environment],
    );
    expect(booked.rows.map((row) => row.handle)).toEqual(Array.from({ length: expected }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
    const created = await db.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'InvoiceCreated'`, [environment]);
    expect(created.rows[0].n).toBe(expected);
    const failed = await db.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'SubscriptionBillingFailed'`, [
      environment,
    ]);
    expect(failed.rows[0].n).toBe(0);
  }

  it('three processes billing one environment after a 13-month advance: no duplicate, no gap', async () => {
    const environment = randomUUID();
    const first = await api();
    const call = client(first.baseUrl, environment);
    await seed(call);
    const workers = [await worker(), await worker()];
    // The advance's catch-up (first process) and the two workers' runs (their environment has work due by its clock) race.
    await call('POST', '/test-clock/advance', { to: '2028-01-01T00:00:00Z' }, 200);
    await expectExactlyOnce(environment, 13);
    const steps = [first.service, ...workers].map((service) =>
      service
        .logLines()
        .filter((line) => line.msg === 'billing caught up' && line.environmentId === environment)
        .reduce((sum, line) => sum + Number(line.steps), 0),
    );
    // Informative only: a worker logs its steps when its own catch-up ends, which may be after the advance answered.
    process.stdout.write(`billing steps logged by process (api+worker, worker, worker): ${steps.join(', ')} of ${SUBSCRIPTIONS * 13}\n`);
    for (const service of [first.service, ...workers]) service.child.kill('SIGTERM');
    await Promise.all([first.service, ...workers].map((service) => service.exited));
  });

  it('a kill -9 of the process mid-catch-up loses nothing and bills nothing twice', async () => {
    const environment = randomUUID();
    const first = await api();
    const call = client(first.baseUrl, environment);
    await seed(call);
    const advancing = call('POST', '/test-clock/advance', { to: '2028-01-01T00:00:00Z' }).catch(() => 'lost');
    // Kill it once some, but not all, of the invoices are booked.
    const booked = async () =>
      (await db.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'InvoiceBooked'`, [environment])).rows[0].n as number;
    await eventually(booked, (n) => n >= 20, { timeoutMs: 60_000, what: 'some invoices booked' });
    first.service.child.kill('SIGKILL');
    await first.service.exited;
    expect(await advancing).toBe('lost');
    const { rows } = await db.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'InvoiceBooked'`, [environment]);
    expect(rows[0].n).toBeLessThan(SUBSCRIPTIONS * 13);

    // A new process: the same advance (the clock already moved) catches up the rest.
    const second = await api();
    await client(second.baseUrl, environment)('POST', '/test-clock/advance', { to: '2028-01-01T00:00:00Z' }, 200);
    await expectExactlyOnce(environment, 13);
    second.service.child.kill('SIGTERM');
    await second.service.exited;
  });
  it('usage with a grace period across three processes: every period billed once, every draft booked once, with its usage', async () => {
    const USAGE_SUBSCRIPTIONS = 15;
    const environment = randomUUID();
    const first = await api();
    const call = client(first.baseUrl, environment);
    await call('PUT', '/usage-settings', { usageGracePeriodHours: 24 }, 200);
    await call('POST', '/billable-metrics', { code: 'calls', name: 'Calls', aggregation: 'count' }, 201);
    const product = (await call('POST', '/products', { name: 'Usage plan' }, 201)).id;
    const price = (
      await call(
        'POST',
        '/prices',
        {
          name: 'Calls',
          priceModel: 'fee',
          pricing: { eur: { unitAmount: 10 } },
          purchase: 'recurring',
          termCount: 1,
          termUnit: 'month',
          billingTiming: 'event_based',
          metricCode: 'calls',
          productId: product,
        },
        201,
      )
    ).id;
    const ids: string[] = [];
    for (let i = 0; i < USAGE_SUBSCRIPTIONS; i++) {
      ids.push(
        (
          await call(
            'POST',
            '/subscriptions',
            {
              customer: { id: randomUUID(), handle: `U-${i}`, name: `Usage ${i}` },
              currency: 'EUR',
              term: { start: '2027-01-01', end: null },
              items: [{ priceId: price }],
            },
            201,
          )
        ).id,
      );
    }
    await call('POST', '/test-clock/advance', { to: '2027-01-20T00:00:00Z' }, 200);
    // Subscription i used i + 1 calls in January.
    const events = ids.flatMap((subscriptionId, i) =>
      Array.from({ length: i + 1 }, (_, n) => ({
        id: `${subscriptionId}-${n}`,
        subscriptionId,
        metricCode: 'calls',
        timestamp: `2027-01-${String(2 + n).padStart(2, '0')}T10:00:00Z`,
      })),
    );
    expect((await call('POST', '/usage-events', { events }, 200)).accepted).toBe(events.length);

    const workers = [await worker(), await worker()];
    await call('POST', '/test-clock/advance', { to: '2027-06-01T12:00:00Z' }, 200);
    // Billed at Feb 1 … Jun 1 (5 instants); booked 24 h later: all but June's.
    const billed = await db.query(
      `select stream_id, data->>'billAt' as bill_at, count(*)::int as n from events where environment_id = $1 and event_type = 'SubscriptionBilled' group by 1, 2`,
      [environment],
    );
    expect(billed.rows).toHaveLength(USAGE_SUBSCRIPTIONS * 5);
    expect(billed.rows.every((row) => row.n === 1)).toBe(true);
    const bookings = await db.query(
      `select data->>'invoiceId' as invoice, count(*)::int as n from events where environment_id = $1 and event_type = 'SubscriptionInvoiceBooked' group by 1`,
      [environment],
    );
    expect(bookings.rows).toHaveLength(USAGE_SUBSCRIPTIONS * 4);
    expect(bookings.rows.every((row) => row.n === 1)).toBe(true);
    const booked = await db.query(
      `select data->>'handle' as handle from events where environment_id = $1 and event_type = 'InvoiceBooked' order by (data->>'handle')`,
      [environment],
    );
    expect(booked.rows.map((row) => row.handle)).toEqual(Array.from({ length: USAGE_SUBSCRIPTIONS * 4 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
    const januaries = await db.query(
      `select data->'usage'->0->>'quantity' as quantity, data->>'subscriptionId' as subscription from events
        where environment_id = $1 and event_type = 'SubscriptionInvoiceBooked' and data->>'billAt' = '2027-02-01T00:00:00.000Z'`,
      [environment],
    );
    expect(Object.fromEntries(januaries.rows.map((row) => [row.subscription, row.quantity]))).toEqual(
      Object.fromEntries(ids.map((id, i) => [id, String(i + 1)])),
    );
    const failed = await db.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'SubscriptionBillingFailed'`, [
      environment,
    ]);
    expect(failed.rows[0].n).toBe(0);
    for (const service of [first.service, ...workers]) service.child.kill('SIGTERM');
    await Promise.all([first.service, ...workers].map((service) => service.exited));
  });
});
