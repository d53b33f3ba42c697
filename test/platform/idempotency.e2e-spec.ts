import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { expectProblem, FakeClock, startTestApp, TestApp, TestResponse } from '@billing/testing';
import { IdempotencyStore } from '@billing/platform';
import { rawHttp } from './raw-http';

/**
 * Idempotency-Key over HTTP against real Postgres: replays, reuse with
 * another request, concurrent requests with one key, failures kept and
 * released, scoping by environment and caller, expiry, and a write whose
 * answer never came (the key's replay is the committed result).
 */
describe('Idempotency-Key', () => {
  const clock = new FakeClock(new Date('2026-03-01T09:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { IDEMPOTENCY_RETENTION_HOURS: '2', READ_MODEL_TIMEOUT_MS: '400' } });
  });
  afterAll(() => t.close());

  const withKey = (key: string, extra: Record<string, string> = {}) => ({ 'idempotency-key': key, ...extra });
  const createProduct = (key: string, name = 'Gold', options: { token?: string; environment?: string } = {}) =>
    t.request('POST', '/products', { body: { name }, headers: withKey(key), ...options });

  async function eventCount(environmentId = t.environmentId): Promise<number> {
    const [row] = await t.dataSource.query(`select count(*)::int as n from events where environment_id = $1`, [environmentId]);
    return row.n;
  }

  function expectSameResponse(replay: TestResponse, first: TestResponse): void {
    expect(replay.status).toBe(first.status);
    expect(replay.text).toBe(first.text);
    for (const header of ['content-type', 'etag', 'location']) expect(replay.headers.get(header)).toBe(first.headers.get(header));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
  }

  it('replays the stored response byte for byte and writes no second event', async () => {
    const key = randomUUID();
    const before = await eventCount();
    const first = await createProduct(key);
    expect(first.status).toBe(201);
    expect(first.headers.get('etag')).toBe('"1"');
    const replay = await createProduct(key);
    expectSameResponse(replay, first);
    expect(await eventCount()).toBe(before + 1);
  });

  it('replays an action PUT the same way (archive a price twice: one archive, the second answer replayed)', async () => {
    const price = await t.request('POST', '/prices', {
      body: {
        name: 'Monthly',
        priceModel: 'fee',
        pricing: { eur: { unitAmount: 1000 } },
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        billingTiming: 'advance',
      },
    });
    expect(price.status).toBe(201);
    const key = randomUUID();
    const first = await t.request('PUT', `/prices/${price.body.id}/archive`, { body: {}, headers: withKey(key) });
    expect(first.status).toBe(200);
    const replay = await t.request('PUT', `/prices/${price.body.id}/archive`, { body: {}, headers: withKey(key) });
    expectSameResponse(replay, first);
    // Without the key the same request is a new one: archiving twice is a conflict.
    expectProblem(await t.request('PUT', `/prices/${price.body.id}/archive`, { body: {} }), 409, 'price-archived');
  });

  it('treats the same body in another member order or spacing as the same request', async () => {
    const key = randomUUID();
    const first = await t.request('POST', '/prices', {
      rawBody: '{"name":"A","priceModel":"fee","pricing":{"eur":{"unitAmount":5}},"purchase":"one_time"}',
      headers: withKey(key),
    });
    expect(first.status).toBe(201);
    const replay = await t.request('POST', '/prices', {
      rawBody: '{ "purchase": "one_time", "pricing": { "eur": { "unitAmount": 5 } }, "priceModel": "fee", "name": "A" }',
      headers: withKey(key),
    });
    expectSameResponse(replay, first);
  });

  it('answers 422 idempotency-key-reused for another body, path or method with the key, and runs nothing', async () => {
    const key = randomUUID();
    expect((await createProduct(key, 'First')).status).toBe(201);
    const before = await eventCount();
    const otherBody = await createProduct(key, 'Second');
    expectProblem(otherBody, 422, 'idempotency-key-reused');
    expect(otherBody.body.errors).toEqual([expect.objectContaining({ pointer: '/headers/idempotency-key' })]);
    expectProblem(await t.request('POST', '/tax-codes', { body: { name: 'First' }, headers: withKey(key) }), 422, 'idempotency-key-reused');
    expect(await eventCount()).toBe(before);
  });

  it('runs twenty concurrent requests with one key exactly once: one answer runs it, the others are 409 in flight or replays', async () => {
    const key = randomUUID();
    const before = await eventCount();
    const answers = await Promise.all(Array.from({ length: 20 }, () => createProduct(key, 'Concurrent')));
    const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    const replayed = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === 'true');
    const inFlight = answers.filter((a) => a.status === 409);
    expect(ran).toHaveLength(1);
    expect(replayed.length + inFlight.length).toBe(19);
    for (const answer of replayed) expect(answer.text).toBe(ran[0].text);
    for (const answer of inFlight) {
      expectProblem(answer, 409, 'idempotency-key-in-flight');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(await eventCount()).toBe(before + 1);
    // Once done, every retry is the replay.
    expectSameResponse(await createProduct(key, 'Concurrent'), ran[0]);
  });

  it('answers each of many keyed requests for itself when their key lookups share statements (replay, reuse, new key)', async () => {
    const keys = Array.from({ length: 10 }, () => randomUUID());
    const firsts = await Promise.all(keys.map((key) => createProduct(key, 'Batched')));
    const before = await eventCount();
    const fresh = Array.from({ length: 10 }, () => randomUUID());
    // Each key once per wave: a second request with a key while the first runs is 409 in flight, not what is tested here.
    const [replays, reused, created] = await Promise.all([
      Promise.all(keys.slice(0, 5).map((key) => createProduct(key, 'Batched'))),
      Promise.all(keys.slice(5).map((key) => t.request('POST', '/tax-codes', { body: { name: 'Other' }, headers: withKey(key) }))),
      Promise.all(fresh.map((key) => createProduct(key, 'Fresh'))),
    ]);
    replays.forEach((replay, i) => expectSameResponse(replay, firsts[i]));
    for (const answer of reused) expectProblem(answer, 422, 'idempotency-key-reused');
    for (const answer of created) {
      expect(answer.status).toBe(201);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(10);
    expect(await eventCount()).toBe(before + 10);
  });

  it('keeps a client error with the key and replays it (a 422 stays a 422)', async () => {
    const key = randomUUID();
    const first = await t.request('POST', '/prices', { body: { name: '' }, headers: withKey(key) });
    expectProblem(first, 422, 'validation-failed');
    const replay = await t.request('POST', '/prices', { body: { name: '' }, headers: withKey(key) });
    expectSameResponse(replay, first);
    expect(replay.body.requestId).toBe(first.body.requestId);
  });

  it('keeps a 404 for an unknown resource', async () => {
    const key = randomUUID();
    const path = `/invoices/${randomUUID()}/book`;
    const first = await t.request('PUT', path, { body: {}, headers: withKey(key) });
    expectProblem(first, 404, 'not-found');
    expectSameResponse(await t.request('PUT', path, { body: {}, headers: withKey(key) }), first);
  });

  it('releases the key on a version conflict: the retry with a current If-Match runs', async () => {
    const price = await t.request('POST', '/prices', {
      body: { name: 'V', priceModel: 'fee', pricing: { eur: { unitAmount: 100 } }, purchase: 'one_time' },
    });
    await t.request('PUT', `/prices/${price.body.id}`, { body: { name: 'V2' } });
    const key = randomUUID();
    const stale = await t.request('PUT', `/prices/${price.body.id}`, { body: { name: 'V3' }, headers: withKey(key, { 'if-match': '"1"' }) });
    expectProblem(stale, 409, 'version-conflict');
    const retry = await t.request('PUT', `/prices/${price.body.id}`, { body: { name: 'V3' }, headers: withKey(key, { 'if-match': '"2"' }) });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.name).toBe('V3');
  });

  it('releases the key on a server error: nothing is stored, and the retry runs', async () => {
    await t.dataSource.query(`
      create function refuse_exploding_products() returns trigger language plpgsql as $$
      begin
        if new.data->>'name' = 'Explode' then raise exception 'storage failure'; end if;
        return new;
      end $$`);
    await t.dataSource.query(`create trigger refuse_exploding_products before insert on events for each row execute function refuse_exploding_products()`);
    const key = randomUUID();
    const failed = await createProduct(key, 'Explode');
    expectProblem(failed, 500, 'internal-error');
    await t.dataSource.query(`drop trigger refuse_exploding_products on events`);
    const retry = await createProduct(key, 'Explode');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('scopes keys by environment and by caller: the same key elsewhere is another key', async () => {
    const key = randomUUID();
    const first = await createProduct(key, 'Scoped');
    const otherEnvironment = randomUUID();
    const elsewhere = await createProduct(key, 'Scoped', { environment: otherEnvironment, token: t.token([otherEnvironment]) });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.body.id).not.toBe(first.body.id);
    const otherCaller = await createProduct(key, 'Scoped', { token: t.token([t.environmentId], { subject: 'another-user' }) });
    expect(otherCaller.status).toBe(201);
    expect(otherCaller.headers.get('idempotent-replayed')).toBeNull();
    expect(otherCaller.body.id).not.toBe(first.body.id);
    // With a token for both environments, each environment answers with its own response to the key.
    const both = t.token([t.environmentId, otherEnvironment]);
    expect((await createProduct(key, 'Scoped', { token: both })).body.id).toBe(first.body.id);
    expect((await createProduct(key, 'Scoped', { environment: otherEnvironment, token: both })).body.id).toBe(elsewhere.body.id);
  });

  it('forgets a key after IDEMPOTENCY_RETENTION_HOURS, and the worker purge deletes it', async () => {
    const key = randomUUID();
    const first = await createProduct(key, 'Expiring');
    clock.advance(2 * 3_600_000 - 1_000);
    expectSameResponse(await createProduct(key, 'Expiring'), first);
    clock.advance(2_000);
    const after = await createProduct(key, 'Expiring');
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.body.id).not.toBe(first.body.id);
    clock.advance(2 * 3_600_000);
    const store = t.app.get(IdempotencyStore);
    expect(await store.purgeExpired()).toBeGreaterThan(0);
    const [row] = await t.dataSource.query(`select count(*)::int as n from idempotency_keys where key = $1`, [key]);
    expect(row.n).toBe(0);
  });

  it('answers a write whose read models were late (503) and replays the committed result to the retry', async () => {
    // Hold every projection's lock, as a stalled projector would: the write commits but cannot be read back in time.
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    const names: Array<{ name: string }> = await t.dataSource.query(`select name from projection_checkpoints`);
    await blocker.query('begin');
    for (const { name } of names) await blocker.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
    const key = randomUUID();
    const late = await createProduct(key, 'Late');
    expectProblem(late, 503, 'read-model-timeout');
    await blocker.query('rollback');
    await blocker.end();
    const replay = await createProduct(key, 'Late');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.name).toBe('Late');
    // The replay gives the first answer's read-your-writes guarantee (issue 41 #11).
    const read = await t.request('GET', `/products/${replay.body.id}`);
    expect(read.status).toBe(200);
    const [row] = await t.dataSource.query(`select count(*)::int as n from events where stream_id = $1`, [replay.body.id]);
    expect(row.n).toBe(1);
  });

  it('issue 41 #11: a replay waits for the read models of what its request wrote; a lagging read model never refuses a customer that exists', async () => {
    const product = await t.request('POST', '/products', { body: { name: 'Plans' } });
    const price = await t.request('POST', '/prices', {
      body: {
        productId: product.body.id,
        name: 'Monthly',
        priceModel: 'fee',
        pricing: { eur: { unitAmount: 1000 } },
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
      },
    });
    expect(price.status).toBe(201);
    // The customers read model held back, as a stalled projector (or a process killed after the commit) leaves it.
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query(`select pg_advisory_xact_lock(hashtext($1))`, ['projection:invoicing.customers']);
    const key = randomUUID();
    const createCustomer = () => t.request('POST', '/customers', { body: { currency: 'EUR', name: 'Lagging Oy' }, headers: withKey(key) });
    try {
      expectProblem(await createCustomer(), 503, 'read-model-timeout');
      // Replayed while the read model still lags: not a 201 whose customer cannot be read yet.
      const early = await createCustomer();
      expectProblem(early, 503, 'read-model-timeout');
      expect(early.headers.get('idempotent-replayed')).toBeNull();
      const [{ id: customerId }] = await t.dataSource.query(
        `select stream_id as id from events where event_type = 'CustomerCreated' and data->>'name' = 'Lagging Oy'`,
      );
      expect((await t.request('GET', `/customers/${customerId}`)).status).toBe(404);
      // A subscription naming the customer is decided on the customer's stream, not refused by the lagging read model.
      const subscription = await t.request('POST', '/subscriptions', {
        body: { customerId, currency: 'EUR', term: { start: '2026-03-01', end: null }, items: [{ priceId: price.body.id }] },
        headers: withKey(randomUUID()),
      });
      expect(subscription.status).toBe(201);
      expect(subscription.body.customer.name).toBe('Lagging Oy');
      const invoice = await t.request('POST', '/invoices', {
        body: { customerId, currency: 'EUR', items: [{ title: 'Setup', quantity: 1, unitAmount: 5000, taxCode: null }] },
        headers: withKey(randomUUID()),
      });
      expect(invoice.status).toBe(201);
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    const replay = await createCustomer();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await t.request('GET', `/customers/${replay.body.id}`)).status).toBe(200);
  });

  it('issue 41 #11: a price and a tax code whose read models lag are never refused as unknown (no 422 kept with the key)', async () => {
    const product = await t.request('POST', '/products', { body: { name: 'Lagging plans' } });
    expect(product.status).toBe(201);
    const hold = async (projections: string[]) => {
      const blocker = new Client({ connectionString: t.database.url });
      await blocker.connect();
      await blocker.query('begin');
      for (const name of projections) await blocker.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
      return async () => {
        await blocker.query('rollback');
        await blocker.end();
      };
    };
    const code = `LAG${randomUUID().slice(0, 6)}`;
    let release = await hold(['subscriptions.read-model', 'invoicing.read-model']);
    let priceId: string;
    const subscriptionKey = randomUUID();
    const invoiceKey = randomUUID();
    // One body per key: its retries are the same request.
    const customer = { id: randomUUID(), handle: 'C-LAG', name: 'Lag Oy' };
    const subscribe = () =>
      t.request('POST', '/subscriptions', {
        body: {
          customer,
          currency: 'EUR',
          term: { start: '2026-03-01', end: null },
          items: [{ priceId, taxCode: code }],
        },
        headers: withKey(subscriptionKey),
      });
    const invoice = () =>
      t.request('POST', '/invoices', {
        body: {
          customer,
          currency: 'EUR',
          items: [{ title: 'Setup', quantity: 1, unitAmount: 5000, taxCode: code }],
        },
        headers: withKey(invoiceKey),
      });
    try {
      // Both written to the log, their read models held back.
      expectProblem(await t.request('POST', '/tax-codes', { body: { code, rate: 0.24, taxable: true } }), 503, 'read-model-timeout');
      const price = await t.request('POST', '/prices', {
        body: {
          productId: product.body.id,
          name: 'Lagging',
          priceModel: 'fee',
          pricing: { eur: { unitAmount: 1000 } },
          purchase: 'recurring',
          termCount: 1,
          termUnit: 'month',
        },
      });
      expectProblem(price, 503, 'read-model-timeout');
      [{ id: priceId }] = await t.dataSource.query(`select stream_id as id from events where event_type = 'PriceCreated' and data->>'name' = 'Lagging'`);
      // The subscription waits for its read model to show them: 503 while it cannot, never a 422 kept with its key.
      expectProblem(await subscribe(), 503, 'read-model-timeout');
      // The invoice finds the tax code in its stream: written (its own read model is held, hence the 503).
      expectProblem(await invoice(), 503, 'read-model-timeout');
    } finally {
      await release();
    }
    release = async () => undefined;
    const subscribed = await subscribe();
    expect([subscribed.status, subscribed.headers.get('idempotent-replayed')]).toEqual([201, null]);
    const invoiced = await invoice();
    expect([invoiced.status, invoiced.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(invoiced.body.items[0]).toMatchObject({ taxAmount: 1200, tax: { taxable: true, taxCode: code, taxRate: 0.24 } });
  });

  it('issue 41 #11: usage naming a subscription whose read model lags is never rejected as unknown (no rejection kept with the key)', async () => {
    const created = async (path: string, body: unknown) => {
      const response = await t.request('POST', path, { body });
      expect(response.status).toBe(201);
      return response.body;
    };
    const code = `lag_${randomUUID().slice(0, 8)}`;
    await created('/billable-metrics', { code, name: 'Lagging calls', aggregation: 'count' });
    const product = await created('/products', { name: 'Usage plan' });
    const pricing = { pricing: { eur: { unitAmount: 100 } }, purchase: 'recurring', termCount: 1, termUnit: 'month' };
    const price = await created('/prices', {
      name: 'Usage',
      priceModel: 'fee',
      billingTiming: 'event_based',
      metricCode: code,
      productId: product.id,
      ...pricing,
    });
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query(`select pg_advisory_xact_lock(hashtext($1))`, ['projection:subscriptions.read-model']);
    const key = randomUUID();
    let send: () => Promise<TestResponse>;
    try {
      const body = { customer: { id: randomUUID(), handle: 'C-LAG', name: 'Lag Oy' }, currency: 'EUR', term: { start: '2026-02-01', end: null } };
      expectProblem(await t.request('POST', '/subscriptions', { body: { ...body, items: [{ priceId: price.id }] } }), 503, 'read-model-timeout');
      const [{ id: subscriptionId }] = await t.dataSource.query(
        `select stream_id as id from events where event_type = 'SubscriptionCreated' order by global_position desc limit 1`,
      );
      const events = [{ id: randomUUID(), subscriptionId, metricCode: code, timestamp: '2026-02-20T09:00:00Z', properties: {} }];
      send = () => t.request('POST', '/usage-events', { body: { events }, headers: withKey(key) });
      // The batch waits for the read model to show the subscription: 503 while it cannot, never a rejection kept with its key.
      expectProblem(await send(), 503, 'read-model-timeout');
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    const accepted = await send!();
    expect([accepted.status, accepted.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(accepted.body.results).toEqual([expect.objectContaining({ status: 'accepted' })]);
  });

  it('applies to every POST and PUT of the served OpenAPI document: declared, validated, and replayed', async () => {
    const document = (await t.request('GET', '/openapi.json', { token: null })).body;
    const writes = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      ['post', 'put'].filter((method) => item[method]).map((method) => ({ method: method.toUpperCase(), path, operation: item[method] })),
    );
    expect(writes.length).toBeGreaterThanOrEqual(15);
    const uncovered: string[] = [];
    // A public write (no token: a gateway's signed webhook) has no caller to scope a key to: it must not declare one.
    const isPublic = (operation: any) => operation.security?.length > 0 && operation.security.every((r: object) => Object.keys(r).length === 0);
    for (const { method, path, operation } of writes.filter(({ operation }) => isPublic(operation))) {
      if (operation.parameters.some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey')) uncovered.push(`${method} ${path}: public, yet declared`);
    }
    for (const { method, path, operation } of writes.filter(({ operation }) => !isPublic(operation))) {
      const label = `${method} ${path}`;
      if (!operation.parameters.some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey')) uncovered.push(`${label}: not declared`);
      const url = path.replace(/\{[^}]+\}/g, () => randomUUID());
      const bad = await t.request(method, url, { body: {}, headers: withKey('') });
      if (bad.status !== 400 || bad.body?.type !== '/problems/invalid-idempotency-key') uncovered.push(`${label}: bad key answered ${bad.status}`);
      const key = randomUUID();
      const first = await t.request(method, url, { body: {}, headers: withKey(key) });
      const again = await t.request(method, url, { body: {}, headers: withKey(key) });
      if (first.status >= 500 || again.headers.get('idempotent-replayed') !== 'true' || again.text !== first.text || again.status !== first.status) {
        uncovered.push(`${label}: not replayed (${first.status} then ${again.status})`);
      }
    }
    expect(uncovered).toEqual([]);
  });

  describe('the header', () => {
    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
    ])('answers 400 at /headers/idempotency-key when %s', async (_label, key) => {
      const answer = await createProduct(key);
      expectProblem(answer, 400, 'invalid-idempotency-key');
      expect(answer.body.errors).toEqual([expect.objectContaining({ pointer: '/headers/idempotency-key' })]);
    });

    it('accepts 255 printable ASCII characters, spaces and symbols included', async () => {
      const key = `${'~ !'.repeat(84)}abc`;
      expect(key).toHaveLength(255);
      expect((await createProduct(key)).status).toBe(201);
      expect((await createProduct(key)).headers.get('idempotent-replayed')).toBe('true');
    });

    it("answers 400 for a control character (Node's HTTP parser refuses the request before any route)", async () => {
      const exchange = await rawHttp(t.baseUrl, `POST /products HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\x01b\r\nContent-Length: 2\r\n\r\n{}`);
      expect(exchange.status).toBe(400);
      expect(exchange.body.type).toBe('/problems/malformed-request');
    });

    it.each([
      ['a non-ASCII character', Buffer.from('Idempotency-Key: caf\u00e9\r\n', 'latin1')],
      ['two headers', 'Idempotency-Key: one\r\nIdempotency-Key: two\r\n'],
    ])('answers 400 for %s', async (_label, header) => {
      const body = JSON.stringify({ name: 'Raw' });
      const head = `POST /products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token()}\r\nx-environment: ${t.environmentId}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n`;
      const exchange = await rawHttp(t.baseUrl, Buffer.concat([Buffer.from(head), Buffer.from(header), Buffer.from(`\r\n${body}`)]));
      expect(exchange.status).toBe(400);
      expect(exchange.body.type).toBe('/problems/invalid-idempotency-key');
    });

    it('is ignored by GET and DELETE, even when malformed', async () => {
      expect((await t.request('GET', '/products', { headers: withKey('') })).status).toBe(200);
      const hook = await t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://example.com/hook' } });
      expect(hook.status).toBe(200);
      expect((await t.request('DELETE', `/webhooks/${hook.body.id}`, { headers: withKey('k'.repeat(300)) })).status).toBe(204);
    });
  });
});
