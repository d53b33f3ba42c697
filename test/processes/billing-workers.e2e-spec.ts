import { randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { DEVELOPMENT_JWT_SECRET } from '@billing/platform';
import { createTestDatabase, eventually, TestDatabase } from '@billing/testing';
import { buildService, freePort, killLeftoverServices, ServiceProcess, sleep, startService } from './process-support';

const DAY = 86_400_000;
/** Days from `from` to `to`, both included (YYYY-MM-DD). */
const daysFrom = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / DAY + 1;
/** The proration rule worked by hand: amount × days ÷ days in the period, rounded half away from zero (amounts here are positive). */
const proRate = (amount: number, days: number, daysInPeriod: number) => Math.floor((2 * amount * days + daysInPeriod) / (2 * daysInPeriod));

/**
 * Issue: "three worker processes billing the same environment after a big
 * advance produce no duplicate and no gap; a kill -9 of the worker
 * mid-catch-up loses nothing and bills nothing twice", and issue 23's "three
 * processes billing while changes arrive (no double, no gap)". Real service
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

  /** Requests to the environment's API answering their status and parsed body. */
  function requests(baseUrl: string, environment: string) {
    const token = sign({ environments: [environment] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS256', subject: 'billing-test', expiresIn: 3600 });
    return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; body: any }> => {
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
      return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
    };
  }

  /** Requests answering the parsed body; one answering another status than `expected` throws. */
  function client(baseUrl: string, environment: string) {
    const send = requests(baseUrl, environment);
    return async (method: string, path: string, body?: unknown, expected?: number): Promise<any> => {
      const response = await send(method, path, body);
      if (expected !== undefined && response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response.body;
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

  it('three processes billing while changes arrive: one invoice per subscription and billing instant, every proration line on exactly one invoice, sums as the events say', async () => {
    const CHANGING = 12;
    const environment = randomUUID();
    const first = await api();
    // The workers boot while the environment is set up (its clock, still on real time, has nothing due before 2027).
    const booting = Promise.all([worker(), worker()]);
    const call = client(first.baseUrl, environment);
    const send = requests(first.baseUrl, environment);
    const product = (await call('POST', '/products', { name: 'Plan' }, 201)).id;
    const monthly = async (name: string, unitAmount: number, billingTiming: string): Promise<string> => {
      const body = {
        name,
        priceModel: 'fee',
        pricing: { eur: { unitAmount } },
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        billingTiming,
        productId: product,
      };
      return (await call('POST', '/prices', body, 201)).id;
    };
    const pro = await monthly('Pro', 3100, 'advance');
    const premium = await monthly('Premium', 6200, 'advance');
    const support = await monthly('Support', 3100, 'arrears');
    const unitAmounts: Record<string, number> = { [pro]: 3100, [premium]: 6200 };
    const behaviors = ['create_prorations', 'always_invoice', 'period_end'] as const;
    // Subscription i changes its seat item by behaviors[i % 3]: create_prorations its quantity (1 ⇄ 2), always_invoice and
    // period_end its price (Pro ⇄ Premium). What the test asked for last, per subscription (each change is applied once).
    const subscriptions: { id: string; seat: string; behavior: (typeof behaviors)[number]; priceId: string; quantity: number }[] = [];
    for (let i = 0; i < CHANGING; i++) {
      const created = await call(
        'POST',
        '/subscriptions',
        {
          customer: { id: randomUUID(), handle: `CH-${i}`, name: `Changing ${i}` },
          currency: 'EUR',
          term: { start: '2027-01-01', end: null },
          items: [{ priceId: pro }, { priceId: support }],
        },
        201,
      );
      subscriptions.push({ id: created.id, seat: created.items[0].id, behavior: behaviors[i % 3], priceId: pro, quantity: 1 });
    }
    const retried = new Map<string, number>();
    const change = async (subscription: (typeof subscriptions)[number]): Promise<void> => {
      const item =
        subscription.behavior === 'create_prorations'
          ? { id: subscription.seat, quantity: 3 - subscription.quantity }
          : { id: subscription.seat, priceId: subscription.priceId === pro ? premium : pro };
      const body =
        subscription.behavior === 'period_end'
          ? { items: [item], effective: 'period_end' }
          : { items: [item], effective: 'now', prorationBehavior: subscription.behavior };
      // Billing due before now waits for the engine, or was booked past the request's time while it ran (409
      // subscription-billing-pending), and a step of it may append between the change's load and its append (409
      // version-conflict): the change is sent again, as a client would. A 503 read-model-timeout (a loaded machine) was
      // recorded: sent again with its Idempotency-Key, it answers the recorded change.
      let key = randomUUID();
      for (let attempt = 0; ; attempt++) {
        const response = await send('POST', `/subscriptions/${subscription.id}/changes`, body, { 'idempotency-key': key });
        if (response.status === 200 || response.status === 202) break;
        const problem = `${response.status} ${response.body?.type}`;
        if (
          attempt === 200 ||
          !['409 /problems/subscription-billing-pending', '409 /problems/version-conflict', '503 /problems/read-model-timeout'].includes(problem)
        ) {
          throw new Error(`change of ${subscription.id}: ${response.status} ${response.text}`);
        }
        retried.set(problem, (retried.get(problem) ?? 0) + 1);
        if (response.status === 409) key = randomUUID();
        await sleep(25);
      }
      if (item.quantity !== undefined) subscription.quantity = item.quantity;
      else subscription.priceId = item.priceId;
    };
    await call('POST', '/test-clock/advance', { to: '2027-01-01T00:00:00Z' }, 200);
    const workers = await booting;
    for (const month of ['01', '02', '03']) {
      // Mid-month, while the workers poll: every subscription changes (a period_end change is scheduled for the 1st).
      await call('POST', '/test-clock/advance', { to: `2027-${month}-10T12:00:00Z` }, 200);
      await Promise.all(subscriptions.map(change));
      // The 1st: the advance's catch-up and both workers bill (and apply the scheduled changes) while the changes effective now arrive.
      const next = `2027-${String(Number(month) + 1).padStart(2, '0')}-01T00:00:00Z`;
      await Promise.all([
        call('POST', '/test-clock/advance', { to: next }, 200),
        ...subscriptions.filter((subscription) => subscription.behavior !== 'period_end').map(change),
      ]);
    }
    // May 1 bills what the changes on Apr 1 left waiting.
    await call('POST', '/test-clock/advance', { to: '2027-05-01T00:00:00Z' }, 200);
    for (const service of [first.service, ...workers]) service.child.kill('SIGTERM');
    await Promise.all([first.service, ...workers].map((service) => service.exited));
    // Informative only: how often a change met the billing (it depends on timing).
    process.stdout.write(`changes sent again, by answer: ${JSON.stringify(Object.fromEntries(retried))}\n`);

    // The log's order (transaction id, position) is each stream's version order: projections fold it in that order. A
    // batch that took its transaction id before loading a subscription (a row lock at its claim) and appended after a
    // change committed by a younger transaction would sort before that change: the append refuses it (a conflict).
    const { rows: inverted } = await db.query(
      `select a.stream_type, a.stream_id, a.stream_version, b.stream_version as later_version from events a
         join events b on b.environment_id = a.environment_id and b.stream_type = a.stream_type and b.stream_id = a.stream_id
          and b.stream_version > a.stream_version and (b.transaction_id, b.global_position) < (a.transaction_id, a.global_position)
        where a.environment_id = $1`,
      [environment],
    );
    expect(inverted).toEqual([]);
    const { rows: events } = await db.query(
      `select stream_id, event_type, data from events where environment_id = $1 and stream_type = 'subscription' order by stream_id, stream_version`,
      [environment],
    );
    const { rows: bookedRows } = await db.query(`select data from events where environment_id = $1 and event_type = 'InvoiceBooked'`, [environment]);
    const booked = new Map(bookedRows.map(({ data }) => [data.invoiceId as string, data]));
    expect(bookedRows.map(({ data }) => data.handle).sort()).toEqual(
      Array.from({ length: bookedRows.length }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
    );
    const failed = await db.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'SubscriptionBillingFailed'`, [
      environment,
    ]);
    expect(failed.rows[0].n).toBe(0);
    const invoiced = new Set<string>();
    for (const subscription of subscriptions) {
      const history = events.filter((event) => event.stream_id === subscription.id);
      const billed = history.filter((event) => event.event_type === 'SubscriptionBilled').map((event) => event.data);
      // One invoice per billing instant: the six 1sts each once, with every item's charge on it (no double, no gap) …
      const regular = billed.filter((data) => data.lines.length > 0);
      expect(regular.map((data) => data.billAt)).toEqual(['01', '02', '03', '04', '05'].map((m) => `2027-${m}-01T00:00:00.000Z`));
      expect(regular.map((data) => data.lines.map((line: any) => line.kind))).toEqual([['advance'], ...Array(4).fill(['advance', 'arrears'])]);
      // … and the other invoices are always_invoice changes' own, each booked with its change (right after it in the stream).
      history.forEach((event, i) => {
        if (event.event_type === 'SubscriptionBilled' && event.data.lines.length === 0) {
          expect(history[i - 1]).toMatchObject({ event_type: 'SubscriptionItemsChanged', data: { change: { prorationBehavior: 'always_invoice' } } });
        }
      });
      // Replayed by hand: the seat as the changes left it, the piece billed in advance, and each change's lines by the formula
      // round(full-period amount × days left ÷ days in the period) — a credit at the old amount, a charge at the new.
      let seat = { priceId: pro, quantity: 1 };
      let piece: { start: string; end: string } | null = null;
      const made: string[] = [];
      const onInvoices: string[] = [];
      const key = (line: any) => JSON.stringify([line.itemId, line.kind, line.period, line.amount]);
      for (const { event_type: type, data } of history) {
        if (type === 'SubscriptionItemsChanged') {
          const after = data.items.find((item: any) => item.id === subscription.seat);
          const next = { priceId: after.priceId, quantity: Number(after.quantity) };
          const days = piece === null || data.change.date > piece.end ? 0 : daysFrom(data.change.date, piece.end);
          const full = (of: typeof seat) => unitAmounts[of.priceId] * of.quantity;
          const expected =
            days === 0
              ? []
              : [
                  { kind: 'credit', amount: proRate(full(seat), days, daysFrom(piece!.start, piece!.end)) },
                  { kind: 'charge', amount: proRate(full(next), days, daysFrom(piece!.start, piece!.end)) },
                ];
          expect(data.prorations.map((line: any) => ({ kind: line.kind, amount: line.amount }))).toEqual(expected);
          made.push(...data.prorations.map(key));
          seat = next;
        }
        if (type === 'SubscriptionBilled') {
          for (const line of data.lines) {
            // Whole months: the seat at its price and quantity on the 1st, the support item's month used.
            expect(line.amount).toBe(line.itemId === subscription.seat ? unitAmounts[seat.priceId] * seat.quantity : 3100);
            if (line.kind === 'advance') piece = line.period;
          }
          const prorations = data.prorations ?? [];
          onInvoices.push(...prorations.map(key));
          const signed = prorations.reduce((sum: number, line: any) => sum + (line.kind === 'credit' ? -line.amount : line.amount), 0);
          const subtotal = data.lines.reduce((sum: number, line: any) => sum + line.amount, 0) + signed;
          // The booked invoice says the same: a line per charge and per proration line, the same total.
          const invoice = booked.get(data.invoiceId);
          expect(invoice).toBeDefined();
          expect(invoiced.has(data.invoiceId)).toBe(false);
          invoiced.add(data.invoiceId);
          expect({ lines: invoice.lines.length, total: invoice.totalExclVat }).toEqual({ lines: data.lines.length + prorations.length, total: subtotal });
        }
      }
      // Every proration line made is on exactly one invoice, and nothing is left waiting.
      expect(onInvoices.sort()).toEqual(made.sort());
      expect(seat).toEqual({ priceId: subscription.priceId, quantity: subscription.quantity });
    }
    // Every invoice booked in the environment is one of theirs.
    expect(invoiced.size).toBe(booked.size);
  });
});
