import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { EventStore } from '@billing/event-store';
import { headMessage } from '@billing/platform';
import { expectProblem, FakeClock, startTestApp, TestApp, TestResponse } from '@billing/testing';

/**
 * GET /events (filters, keyset paging bound to its filters, 422 for anything
 * unknown), its NDJSON export, the hash chain (append-only in the database,
 * commit order, tampering found and named by GET /audit/verify) and the
 * signed head, verified here with node:crypto and the served public key.
 */
describe('The event log and its hash chain', () => {
  const clock = new FakeClock(new Date('2026-01-15T10:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { TEST_CLOCKS: 'false' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  function environment() {
    const id = randomUUID();
    const token = t.token([id]);
    const call = (method: string, path: string, body?: unknown) => t.request(method, path, { environment: id, token, body });
    const ok = async (method: string, path: string, body: unknown, expected: number): Promise<TestResponse> => {
      const response = await call(method, path, body);
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    return { id, token, call, ok };
  }

  /** A tax code, a product and a price created at 10:00, the price changed at 11:00, the tax code at 12:00: five events. */
  async function populated() {
    const env = environment();
    clock.set('2026-01-15T10:00:00.000Z');
    const code = `VAT-${randomUUID().slice(0, 6)}`;
    await env.ok('POST', '/tax-codes', { code, rate: 0.24, taxable: true }, 201);
    const productId = (await env.ok('POST', '/products', { name: 'Widgets' }, 201)).body.id;
    const priceId = (
      await env.ok(
        'POST',
        '/prices',
        { productId, name: 'Pro', priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit: 'month', pricing: { eur: { unitAmount: 1500 } } },
        201,
      )
    ).body.id;
    clock.set('2026-01-15T11:00:00.000Z');
    await env.ok('PUT', `/prices/${priceId}`, { name: 'Pro plus' }, 200);
    clock.set('2026-01-15T12:00:00.000Z');
    await env.ok('PUT', `/tax-codes/${code}`, { rate: 0.255 }, 200);
    return { ...env, code, productId, priceId };
  }

  const typesOf = (response: TestResponse) => response.body.items.map((item: { type: string }) => item.type);

  describe('GET /events', () => {
    it('the log in commit order with every member, filtered by type, resourceType, resourceId, from and to', async () => {
      const env = await populated();
      const all = await env.ok('GET', '/events', undefined, 200);
      expect(typesOf(all)).toEqual(['TaxCodeCreated', 'ProductCreated', 'PriceCreated', 'PriceUpdated', 'TaxCodeUpdated']);
      expect(all.body.items.map((item: { position: number }) => item.position)).toEqual([1, 2, 3, 4, 5]);
      expect(all.body.nextPageToken).toBeNull();
      expect(all.body.items[2]).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        position: 3,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        type: 'PriceCreated',
        resource: { type: 'price', id: env.priceId },
        version: 1,
        occurredAt: '2026-01-15T10:00:00.000Z',
        actor: 'test-user',
        requestId: expect.any(String),
        correlationId: expect.any(String),
        causationId: null,
        data: expect.objectContaining({ priceId: env.priceId, name: 'Pro', productId: env.productId }),
      });
      // Tax codes are stored in schema version 2 and shown so; their resource id is their stream id.
      expect(all.body.items[0].resource.type).toBe('tax_code');

      expect(typesOf(await env.ok('GET', '/events?type=PriceUpdated', undefined, 200))).toEqual(['PriceUpdated']);
      expect(typesOf(await env.ok('GET', '/events?resourceType=price', undefined, 200))).toEqual(['PriceCreated', 'PriceUpdated']);
      expect(typesOf(await env.ok('GET', `/events?resourceId=${env.productId}`, undefined, 200))).toEqual(['ProductCreated']);
      expect(typesOf(await env.ok('GET', `/events?resourceType=tax_code&resourceId=${env.code}`, undefined, 200))).toEqual([
        'TaxCodeCreated',
        'TaxCodeUpdated',
      ]);
      expect(typesOf(await env.ok('GET', `/events?resourceId=${all.body.items[0].resource.id}`, undefined, 200))).toEqual(['TaxCodeCreated', 'TaxCodeUpdated']);
      // from is inclusive, to exclusive.
      expect(typesOf(await env.ok('GET', '/events?from=2026-01-15T11:00:00Z', undefined, 200))).toEqual(['PriceUpdated', 'TaxCodeUpdated']);
      expect(typesOf(await env.ok('GET', '/events?to=2026-01-15T11:00:00Z', undefined, 200))).toEqual(['TaxCodeCreated', 'ProductCreated', 'PriceCreated']);
      expect(typesOf(await env.ok('GET', '/events?from=2026-01-15T11:00:00Z&to=2026-01-15T12:00:00Z&resourceType=price', undefined, 200))).toEqual([
        'PriceUpdated',
      ]);
      expect((await env.ok('GET', '/events?type=NoSuchEvent', undefined, 200)).body).toEqual({ items: [], nextPageToken: null });
    });

    it('keyset pages: a token continues the same filters and is refused with others', async () => {
      const env = await populated();
      const seen: string[] = [];
      let token: string | null = null;
      let pages = 0;
      do {
        const page: TestResponse = await env.ok('GET', `/events?limit=2${token ? `&pageToken=${token}` : ''}`, undefined, 200);
        seen.push(...typesOf(page));
        token = page.body.nextPageToken;
        pages += 1;
      } while (token);
      expect(seen).toEqual(['TaxCodeCreated', 'ProductCreated', 'PriceCreated', 'PriceUpdated', 'TaxCodeUpdated']);
      expect(pages).toBe(3);
      const filtered = await env.ok('GET', '/events?resourceType=price&limit=1', undefined, 200);
      expect(typesOf(filtered)).toEqual(['PriceCreated']);
      expect(typesOf(await env.ok('GET', `/events?resourceType=price&limit=1&pageToken=${filtered.body.nextPageToken}`, undefined, 200))).toEqual([
        'PriceUpdated',
      ]);
      expectProblem(
        await env.call('GET', `/events?resourceType=product&limit=1&pageToken=${filtered.body.nextPageToken}`),
        422,
        'validation-failed',
        '/query/pageToken',
      );
      expectProblem(await env.call('GET', `/events?limit=1&pageToken=${filtered.body.nextPageToken}`), 422, 'validation-failed', '/query/pageToken');
      expectProblem(await env.call('GET', '/events?pageToken=garbage'), 422, 'validation-failed', '/query/pageToken');
    });

    it('422 for an unknown or repeated parameter, a bad limit, resource type, resource id or instant', async () => {
      const env = environment();
      const cases: Array<[string, string]> = [
        ['/events?status=active', '/query/status'],
        ['/events?type=A&type=B', '/query/type'],
        ['/events?limit=0', '/query/limit'],
        ['/events?limit=501', '/query/limit'],
        ['/events?limit=ten', '/query/limit'],
        ['/events?resourceType=invoices', '/query/resourceType'],
        ['/events?resourceId=not-a-uuid', '/query/resourceId'],
        ['/events?from=yesterday', '/query/from'],
        ['/events?to=2026-02-30', '/query/to'],
        ['/events/export?limit=10', '/query/limit'],
        ['/events/export?from=soon', '/query/from'],
        ['/audit/verify?environment=x', '/query/environment'],
        ['/audit/head?at=now', '/query/at'],
      ];
      for (const [path, pointer] of cases) expectProblem(await env.call('GET', path), 422, 'validation-failed', pointer);
      expect((await env.ok('GET', '/events?limit=500', undefined, 200)).body).toEqual({ items: [], nextPageToken: null });
    });
  });

  it('GET /events/export: every event as one NDJSON line each, the items of GET /events, filters applied', async () => {
    const env = await populated();
    const all = await env.ok('GET', '/events', undefined, 200);
    const exported = await env.call('GET', '/events/export');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = exported.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line))).toEqual(all.body.items);
    const prices = await env.call('GET', '/events/export?resourceType=price');
    expect(
      prices.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).type),
    ).toEqual(['PriceCreated', 'PriceUpdated']);
    expect((await environment().call('GET', '/events/export')).text).toBe('');
  });

  describe('the hash chain', () => {
    it('the database refuses UPDATE, DELETE and TRUNCATE of events and of the chain', async () => {
      const env = await populated();
      for (const statement of [
        `update events set data = '{}' where environment_id = '${env.id}'`,
        `delete from events where environment_id = '${env.id}'`,
        'truncate events cascade',
        `update event_chain set hash = 'x' where environment_id = '${env.id}'`,
        `delete from event_chain where environment_id = '${env.id}'`,
        'truncate event_chain',
      ]) {
        await expect(t.dataSource.query(statement)).rejects.toThrow(/append-only/);
      }
      expect((await env.ok('GET', '/audit/verify', undefined, 200)).body).toMatchObject({ status: 'ok', eventsChecked: 5 });
    });

    it('GET /audit/verify: ok with the head; a changed event is named (content), an edited link (link), an event written past the trigger (unchained)', async () => {
      const env = await populated();
      const head = await env.ok('GET', '/audit/head', undefined, 200);
      expect((await env.ok('GET', '/audit/verify', undefined, 200)).body).toEqual({
        status: 'ok',
        environmentId: env.id,
        eventsChecked: 5,
        head: { environmentId: env.id, position: 5, hash: head.body.hash },
      });
      const events = (await env.ok('GET', '/events', undefined, 200)).body.items;
      const target = events[3];
      // A superuser disables the guard and changes one event's data.
      await t.dataSource.query(`alter table events disable trigger events_append_only`);
      try {
        await t.dataSource.query(`update events set data = jsonb_set(data, '{name}', '"Pro cheap"') where event_id = $1`, [target.id]);
      } finally {
        await t.dataSource.query(`alter table events enable trigger events_append_only`);
      }
      const broken = await env.ok('GET', '/audit/verify', undefined, 200);
      expect(broken.body).toMatchObject({
        status: 'mismatch',
        environmentId: env.id,
        eventsChecked: 3,
        event: { id: target.id, position: 4 },
        differs: 'content',
      });
      expect(broken.body.detail).toContain('hashes to');

      // The chain is edited instead (in other environments): a link's hash (content), or its previous hash (link).
      for (const [column, differs] of [
        ['hash', 'content'],
        ['previous_hash', 'link'],
      ]) {
        const other = await populated();
        const otherEvents = (await other.ok('GET', '/events', undefined, 200)).body.items;
        await t.dataSource.query(`alter table event_chain disable trigger event_chain_append_only`);
        try {
          await t.dataSource.query(`update event_chain set ${column} = repeat('a', 64) where event_id = $1`, [otherEvents[1].id]);
        } finally {
          await t.dataSource.query(`alter table event_chain enable trigger event_chain_append_only`);
        }
        expect((await other.ok('GET', '/audit/verify', undefined, 200)).body).toMatchObject({
          status: 'mismatch',
          event: { id: otherEvents[1].id, position: 2 },
          differs,
        });
      }

      // An event inserted with the chain trigger disabled.
      const third = await populated();
      const sneaked = randomUUID();
      await t.dataSource.query(`alter table events disable trigger events_chain`);
      try {
        await t.dataSource.query(
          `insert into events (event_id, environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at)
           values ($1, $2, 'product', $3, 1, 'ProductCreated', 1, '{}', '{}', now())`,
          [sneaked, third.id, randomUUID()],
        );
      } finally {
        await t.dataSource.query(`alter table events enable trigger events_chain`);
      }
      expect((await third.ok('GET', '/audit/verify', undefined, 200)).body).toMatchObject({
        status: 'mismatch',
        event: { id: sneaked, position: null },
        differs: 'unchained',
      });
    });

    it('the verifier rebuilds the canonical bytes of any data: escapes, non-ASCII, exact decimals, key order', async () => {
      const env = environment();
      await t.app.get(EventStore).append(
        [
          {
            stream: { environmentId: env.id, streamType: 'odd-stream', streamId: randomUUID() },
            expectedVersion: 'no_stream',
            events: [
              {
                eventId: randomUUID(),
                type: 'Odd"Type\\\n\u0001é\u2028',
                schemaVersion: 7,
                data: { zz: 1, a: 'ä"\\\n\t\u0001\u001f 😀 \u2028', n: 1.5, big: 12345678901234567000, nested: [{ y: null, x: true }], '': 0 },
                occurredAt: new Date('2026-01-15T10:00:00.123Z'),
              },
            ],
          },
        ],
        { actor: 'system:odd "actor"', requestId: null, correlationId: 'ć', causationId: null },
      );
      await t.dataSource.query(
        `insert into events (event_id, environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at)
        values ($1, $2, 'odd-stream', $3, 1, 'Raw', 1, '{"n": 1.50, "e": 1e3, "m": -0.0}', '{}', '2026-01-15 10:00:00.123456+00')`,
        [randomUUID(), env.id, randomUUID()],
      );
      expect((await env.ok('GET', '/audit/verify', undefined, 200)).body).toMatchObject({ status: 'ok', eventsChecked: 2 });
    });

    it('chains in commit order: a transaction that commits late is chained after one that began later but committed first', async () => {
      const env = environment();
      const eventStore = t.app.get(EventStore);
      const append = (manager?: Parameters<EventStore['append']>[2]) =>
        eventStore.append(
          [
            {
              stream: { environmentId: env.id, streamType: 'product', streamId: randomUUID() },
              expectedVersion: 'no_stream',
              events: [{ eventId: randomUUID(), type: 'ProductCreated', schemaVersion: 1, data: { name: 'x' }, occurredAt: new Date() }],
            },
          ],
          { actor: 'test', requestId: null, correlationId: randomUUID(), causationId: null },
          manager,
        );
      const runner = t.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await append(runner.manager);
        await append();
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
      const rows = await t.dataSource.query(
        `select c.sequence::int, e.global_position::int from event_chain c join events e using (event_id) where c.environment_id = $1 order by c.sequence`,
        [env.id],
      );
      expect(rows.map((row: { global_position: number }) => row.global_position)).toEqual(
        [...rows.map((row: { global_position: number }) => row.global_position)].sort((a, b) => b - a),
      );
      expect((await env.ok('GET', '/audit/verify', undefined, 200)).body).toMatchObject({ status: 'ok', eventsChecked: 2 });
    });

    it('GET /audit/head: Ed25519 over the documented message, verified with node:crypto and GET /audit/public-key', async () => {
      const env = await populated();
      const head = (await env.ok('GET', '/audit/head', undefined, 200)).body;
      expect(head).toEqual({
        environmentId: env.id,
        position: 5,
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        at: expect.any(String),
        signature: expect.any(String),
      });
      // The head is the last event's link.
      expect((await env.ok('GET', '/events', undefined, 200)).body.items[4].hash).toBe(head.hash);
      const pem = await env.ok('GET', '/audit/public-key', undefined, 200);
      expect(pem.text).toContain('-----BEGIN PUBLIC KEY-----');
      const publicKey = createPublicKey(pem.text);
      expect(publicKey.asymmetricKeyType).toBe('ed25519');
      const message = Buffer.from([`billing-audit-head/v1`, env.id, '5', head.hash, head.at].join('\n'), 'utf8');
      expect(message.equals(headMessage(head))).toBe(true);
      expect(verify(null, message, publicKey, Buffer.from(head.signature, 'base64'))).toBe(true);
      // Any other position, hash or environment does not verify.
      expect(verify(null, headMessage({ ...head, position: 4 }), publicKey, Buffer.from(head.signature, 'base64'))).toBe(false);
      expect(verify(null, headMessage({ ...head, environmentId: randomUUID() }), publicKey, Buffer.from(head.signature, 'base64'))).toBe(false);
      // An empty environment: position 0, 64 zeros.
      expect((await environment().ok('GET', '/audit/head', undefined, 200)).body).toMatchObject({ position: 0, hash: '0'.repeat(64) });
    });
  });

  it('issue 20 #5: GET /audit/head signs the newest link once an environment has more than 100 and more than 1 000 events', async () => {
    const env = environment();
    const eventStore = t.app.get(EventStore);
    const append = (count: number) =>
      eventStore.append(
        Array.from({ length: count }, () => ({
          stream: { environmentId: env.id, streamType: 'product', streamId: randomUUID() },
          expectedVersion: 'no_stream' as const,
          events: [{ eventId: randomUUID(), type: 'ProductCreated', schemaVersion: 1, data: { name: 'x' }, occurredAt: new Date() }],
        })),
        { actor: 'test', requestId: null, correlationId: randomUUID(), causationId: null },
      );
    const newestLink = async () =>
      (
        await t.dataSource.query(`select c.sequence::int as position, c.hash from event_chain c where c.environment_id = $1 order by c.sequence desc limit 1`, [
          env.id,
        ])
      )[0];
    for (const [count, total] of [
      [150, 150],
      [900, 1050],
    ]) {
      await append(count);
      const head = (await env.ok('GET', '/audit/head', undefined, 200)).body;
      expect(await newestLink()).toEqual({ position: total, hash: head.hash });
      expect(head).toMatchObject({ environmentId: env.id, position: total });
      expect((await env.ok('GET', '/audit/verify', undefined, 200)).body).toMatchObject({
        status: 'ok',
        eventsChecked: total,
        head: { position: total, hash: head.hash },
      });
    }
    // The log's keyset pages cross positions 100 and 1 000 in order, every event once.
    const positions: number[] = [];
    for (let token: string | null = null, first = true; first || token !== null; first = false) {
      const page: TestResponse = await env.ok('GET', `/events?limit=100${token ? `&pageToken=${token}` : ''}`, undefined, 200);
      positions.push(...page.body.items.map((item: { position: number }) => item.position));
      token = page.body.nextPageToken;
    }
    expect(positions).toEqual(Array.from({ length: 1050 }, (_, i) => i + 1));
  });

  it("every route answers only the caller's environment: another environment sees none of it, a token without the environment is a 403", async () => {
    const env = await populated();
    const other = environment();
    expect((await other.ok('GET', '/events', undefined, 200)).body).toEqual({ items: [], nextPageToken: null });
    expect((await other.ok('GET', `/events?resourceId=${env.priceId}`, undefined, 200)).body.items).toEqual([]);
    expect((await other.ok('GET', '/events/export', undefined, 200)).text).toBe('');
    expect((await other.ok('GET', '/audit/verify', undefined, 200)).body).toMatchObject({ status: 'ok', eventsChecked: 0, head: { position: 0 } });
    expect((await other.ok('GET', '/audit/head', undefined, 200)).body).toMatchObject({ environmentId: other.id, position: 0 });
    for (const path of ['/events', '/events/export', '/audit/verify', '/audit/head', '/audit/public-key']) {
      expect((await t.request('GET', path, { environment: env.id, token: other.token })).status).toBe(403);
      expect((await t.request('GET', path, { environment: env.id, token: null })).status).toBe(401);
    }
  });
});
