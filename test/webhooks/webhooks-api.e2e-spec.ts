import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '@billing/testing';
import { appendEvent, deliveriesFor, eventually, queued, testPriceContext } from './webhook-test-kit';

const PROBLEM = 'application/problem+json';

/** Production-like policy: https only, no private networks. The dispatcher is off (nothing is sent). */
describe('Webhooks API', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      extraContexts: [testPriceContext],
      env: {
        WEBHOOK_DISPATCHER_ENABLED: 'false',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
        WEBHOOK_ALLOW_INSECURE_HTTP: 'false',
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  function expectProblem(response: { status: number; headers: Headers; body: any }, status: number, type: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain(PROBLEM);
    expect(response.body).toMatchObject({ type: `/problems/${type}`, status });
  }

  const otherEnvironment = () => {
    const environment = randomUUID();
    return { environment, token: t.token([environment]) };
  };

  async function subscribe(url: string, options: { version?: string; environment?: string; token?: string } = {}) {
    const headers: Record<string, string> = options.version === undefined ? {} : { 'x-version': options.version };
    return t.request('PUT', '/webhooks/subscribe', { body: { url }, headers, environment: options.environment, token: options.token });
  }

  describe('PUT /webhooks/subscribe', () => {
    it('answers 200 with id, url and a 32-byte whsec_ signature key', async () => {
      const response = await subscribe('https://Example.com/hooks/a', { version: '2022-03' });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['id', 'signatureKey', 'url']);
      expect(response.body.url).toBe('https://example.com/hooks/a');
      expect(response.body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.body.signatureKey).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(response.body.signatureKey.slice(6), 'base64')).toHaveLength(32);
    });

    it('returns the same id and key when the URL is subscribed again (in any spelling of it)', async () => {
      const first = await subscribe('https://example.com/hooks/again');
      const second = await subscribe('HTTPS://EXAMPLE.COM:443/hooks/again');
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
    });

    it('stores the key encrypted: the clear key appears in no event and no table', async () => {
      const { body } = await subscribe('https://example.com/hooks/encrypted');
      const secret = body.signatureKey.slice(6);
      const [events] = await t.dataSource.query(`select count(*)::int as n from events where data::text like '%' || $1 || '%'`, [secret]);
      const [rows] = await t.dataSource.query(`select count(*)::int as n from webhook_subscriptions where encrypted_signature_key like '%' || $1 || '%'`, [
        secret,
      ]);
      expect(events.n).toBe(0);
      expect(rows.n).toBe(0);
      const [event] = await t.dataSource.query(`select data from events where stream_id = $1`, [body.id]);
      expect(event.data.encryptedSignatureKey).toMatch(/^v1\./);
    });

    it('stores the X-version (missing: the newest) and lists it', async () => {
      const withHeader = await subscribe('https://example.com/hooks/versioned', { version: '2022-03' });
      const without = await subscribe('https://example.com/hooks/unversioned');
      const list = await t.request('GET', '/webhooks?limit=100');
      const byId = new Map(list.body.items.map((item: any) => [item.id, item]));
      expect(byId.get(withHeader.body.id)).toMatchObject({ version: '2022-03' });
      expect(byId.get(without.body.id)).toMatchObject({ version: '2022-03' });
    });

    it.each([
      ['2021-01', 'unknown version 2021-01; supported: 2022-03'],
      ['2022-3', 'must be a version label of the form YYYY-MM; supported: 2022-03'],
      ['latest', 'must be a version label of the form YYYY-MM; supported: 2022-03'],
    ])('422 for X-version %p', async (version, detail) => {
      const response = await subscribe('https://example.com/hooks/v', { version });
      expectProblem(response, 422, 'unknown-version');
      expect(response.body.errors).toEqual([{ pointer: '/headers/x-version', detail }]);
    });

    it.each([
      ['http://example.com/hooks', 'insecure-url', 'must use https'],
      ['ftp://example.com/hooks', 'insecure-url', 'must use https'],
      ['https://user:pw@example.com/hooks', 'invalid-url', 'must not contain a user name or password'],
      ['https://example.com/hooks#x', 'invalid-url', 'must not contain a fragment'],
      ['https://example.com:0/hooks', 'invalid-url', 'must not use port 0'],
      ['https://8.8.8.8:00/hooks', 'invalid-url', 'must not use port 0'],
      ['not a url', 'invalid-url', 'must be an absolute URL'],
      ['', 'invalid-url', 'must be a URL'],
    ])('422 for %p (%s)', async (url, code, detail) => {
      const response = await subscribe(url);
      expectProblem(response, 422, code);
      expect(response.body.errors).toEqual([{ pointer: '/url', detail }]);
    });

    it.each([
      'https://127.0.0.1/hooks',
      'https://2130706433/hooks',
      'https://0x7f.1/hooks',
      'https://[::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://10.1.2.3/hooks',
      'https://localhost/hooks',
      'http://localhost/hooks',
    ])('422 forbidden-address (or insecure-url) for the internal target %s', async (url) => {
      const response = await subscribe(url);
      expectProblem(response, 422, url.startsWith('http:') ? 'insecure-url' : 'forbidden-address');
      expect(response.body.errors[0].pointer).toBe('/url');
    });

    it('422 with pointers for a missing url and for unknown properties', async () => {
      const response = await t.request('PUT', '/webhooks/subscribe', { body: { uri: 'https://example.com' } });
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual(
        expect.arrayContaining([
          { pointer: '/uri', detail: 'unknown property: not accepted here' },
          { pointer: '/url', detail: 'must be a string' },
        ]),
      );
    });

    it('401 without a token, 403 for an environment the token does not list', async () => {
      expectProblem(await t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://example.com/x' }, token: null }), 401, 'unauthorized');
      expectProblem(
        await t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://example.com/x' }, environment: randomUUID() }),
        403,
        'forbidden-environment',
      );
    });

    it('the same URL in another environment is another subscription with another key', async () => {
      const here = await subscribe('https://example.com/hooks/shared');
      const other = otherEnvironment();
      const there = await subscribe('https://example.com/hooks/shared', other);
      expect(there.status).toBe(200);
      expect(there.body.id).not.toBe(here.body.id);
      expect(there.body.signatureKey).not.toBe(here.body.signatureKey);
    });

    it('concurrent first subscriptions of one URL all answer the same id and key', async () => {
      const responses = await Promise.all(Array.from({ length: 5 }, () => subscribe('https://example.com/hooks/race')));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(responses.map((r) => r.body.signatureKey)).size).toBe(1);
      expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    });
  });

  describe('GET /webhooks', () => {
    it('lists the environment subscriptions without keys, paged', async () => {
      const other = otherEnvironment();
      const created = [];
      for (const name of ['p1', 'p2', 'p3']) created.push((await subscribe(`https://example.com/page/${name}`, other)).body);
      const first = await t.request('GET', '/webhooks?limit=2', other);
      expect(first.status).toBe(200);
      expect(first.body.items).toHaveLength(2);
      expect(first.body.items[0]).toEqual({
        id: created[0].id,
        url: 'https://example.com/page/p1',
        version: '2022-03',
        status: 'active',
        disabledReason: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(first.text).not.toContain('whsec_');
      expect(first.text).not.toContain('signatureKey');
      const second = await t.request('GET', `/webhooks?limit=2&pageToken=${first.body.nextPageToken}`, other);
      expect(second.body.items.map((i: any) => i.id)).toEqual([created[2].id]);
      expect(second.body.nextPageToken).toBeNull();
    });

    it('does not list another environment subscriptions', async () => {
      const mine = await subscribe('https://example.com/hooks/mine');
      const other = otherEnvironment();
      const list = await t.request('GET', '/webhooks', other);
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ items: [], nextPageToken: null });
      expect(list.text).not.toContain(mine.body.id);
    });

    it('422 for a bad limit or page token; 401 without a token', async () => {
      const badLimit = await t.request('GET', '/webhooks?limit=101');
      expectProblem(badLimit, 422, 'validation-failed');
      expect(badLimit.body.errors).toEqual([{ pointer: '/query/limit', detail: 'must be an integer from 1 to 100' }]);
      const badToken = await t.request('GET', '/webhooks?pageToken=nope');
      expect(badToken.body.errors[0].pointer).toBe('/query/pageToken');
      expectProblem(await t.request('GET', '/webhooks', { token: null }), 401, 'unauthorized');
    });
  });

  describe('DELETE /webhooks/{id}', () => {
    it('204, then the subscription is no longer listed; deleting again is 204', async () => {
      const { body } = await subscribe('https://example.com/hooks/delete-me');
      const deleted = await t.request('DELETE', `/webhooks/${body.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      const list = await t.request('GET', '/webhooks?limit=100');
      expect(list.body.items.map((i: any) => i.id)).not.toContain(body.id);
      expect((await t.request('DELETE', `/webhooks/${body.id}`)).status).toBe(204);
    });

    it('subscribing a deleted URL again gives the same id and a new key', async () => {
      const first = await subscribe('https://example.com/hooks/comeback');
      await t.request('DELETE', `/webhooks/${first.body.id}`);
      const again = await subscribe('https://example.com/hooks/comeback');
      expect(again.body.id).toBe(first.body.id);
      expect(again.body.signatureKey).not.toBe(first.body.signatureKey);
    });

    it('404 for an unknown id and for an id of another environment; 403; 401', async () => {
      expectProblem(await t.request('DELETE', `/webhooks/${randomUUID()}`), 404, 'not-found');
      const { body } = await subscribe('https://example.com/hooks/not-yours');
      expectProblem(await t.request('DELETE', `/webhooks/${body.id}`, otherEnvironment()), 404, 'not-found');
      expect((await t.request('GET', '/webhooks?limit=100')).body.items.map((i: any) => i.id)).toContain(body.id);
      expectProblem(await t.request('DELETE', `/webhooks/${body.id}`, { environment: randomUUID() }), 403, 'forbidden-environment');
      expectProblem(await t.request('DELETE', `/webhooks/${body.id}`, { token: null }), 401, 'unauthorized');
    });
  });

  describe('PUT /webhooks/{id}/rotate-key', () => {
    it('200 with a new key; subscribing again then returns the new key', async () => {
      const { body } = await subscribe('https://example.com/hooks/rotate');
      const rotated = await t.request('PUT', `/webhooks/${body.id}/rotate-key`);
      expect(rotated.status).toBe(200);
      expect(rotated.body).toEqual({ id: body.id, url: 'https://example.com/hooks/rotate', signatureKey: expect.stringMatching(/^whsec_/) });
      expect(rotated.body.signatureKey).not.toBe(body.signatureKey);
      expect((await subscribe('https://example.com/hooks/rotate')).body.signatureKey).toBe(rotated.body.signatureKey);
    });

    it('409 webhook-not-active for a deleted subscription; 404 unknown or other environment; 401', async () => {
      const { body } = await subscribe('https://example.com/hooks/rotate-deleted');
      await t.request('DELETE', `/webhooks/${body.id}`);
      expectProblem(await t.request('PUT', `/webhooks/${body.id}/rotate-key`), 409, 'webhook-not-active');
      expectProblem(await t.request('PUT', `/webhooks/${randomUUID()}/rotate-key`), 404, 'not-found');
      const live = await subscribe('https://example.com/hooks/rotate-other-env');
      expectProblem(await t.request('PUT', `/webhooks/${live.body.id}/rotate-key`, otherEnvironment()), 404, 'not-found');
      expectProblem(await t.request('PUT', `/webhooks/${live.body.id}/rotate-key`, { token: null }), 401, 'unauthorized');
    });
  });

  describe('fan-out and GET /webhooks/{id}/deliveries', () => {
    it('queues one delivery per active subscription of the event environment, none elsewhere', async () => {
      const envA = otherEnvironment();
      const envB = otherEnvironment();
      const a1 = (await subscribe('https://example.com/fan/a1', envA)).body;
      const a2 = (await subscribe('https://example.com/fan/a2', envA)).body;
      const b1 = (await subscribe('https://example.com/fan/b1', envB)).body;
      const event = await appendEvent(t, { environmentId: envA.environment, occurredAt: new Date() });
      const rows = await queued(t, event.eventId, 2);
      expect(rows.map((r) => r.subscription_id).sort()).toEqual([a1.id, a2.id].sort());
      expect(rows.every((r) => r.status === 'pending' && r.environment_id === envA.environment)).toBe(true);
      const listed = await t.request('GET', `/webhooks/${a1.id}/deliveries`, envA);
      expect(listed.status).toBe(200);
      expect(listed.body.items).toEqual([
        {
          id: rows.find((r) => r.subscription_id === a1.id)!.id,
          webhookId: a1.id,
          notificationId: event.eventId,
          type: 'price.created',
          occurredAt: expect.any(String),
          status: 'pending',
          failures: 0,
          nextAttemptAt: expect.any(String),
          deliveredAt: null,
          lastStatusCode: null,
          lastError: null,
          createdAt: expect.any(String),
          attempts: [],
        },
      ]);
      expect((await t.request('GET', `/webhooks/${b1.id}/deliveries`, envB)).body.items).toEqual([]);
    });

    it('a subscription made after an event does not receive it; events that are not announced queue nothing', async () => {
      const env = otherEnvironment();
      const before = await appendEvent(t, { environmentId: env.environment, occurredAt: new Date() });
      const sub = (await subscribe('https://example.com/fan/late', env)).body;
      const silent = await appendEvent(t, { environmentId: env.environment, type: 'InvoiceDuplicated', occurredAt: new Date() });
      const after = await appendEvent(t, { environmentId: env.environment, occurredAt: new Date() });
      await queued(t, after.eventId, 1);
      expect(await deliveriesFor(t, before.eventId)).toEqual([]);
      expect(await deliveriesFor(t, silent.eventId)).toEqual([]);
      const listed = await t.request('GET', `/webhooks/${sub.id}/deliveries`, env);
      expect(listed.body.items.map((d: any) => d.notificationId)).toEqual([after.eventId]);
    });

    it('a settling settlement gives two notifications with distinct, stable ids', async () => {
      const env = otherEnvironment();
      await subscribe('https://example.com/fan/settled', env);
      const event = await appendEvent(t, {
        environmentId: env.environment,
        type: 'InvoiceSettlementAdded',
        streamType: 'test-invoice',
        data: { settlementStatus: 'settled' },
        occurredAt: new Date(),
      });
      const notifications = await eventually(async () => {
        const rows = await t.dataSource.query(`select id, type, event_id from webhook_notifications where event_id = $1 order by type desc`, [event.eventId]);
        return rows.length === 2 ? rows : null;
      });
      expect(notifications.map((n: any) => n.type)).toEqual(['invoice.settlement_added', 'invoice.settled']);
      expect(notifications[0].id).toBe(event.eventId);
      expect(notifications[1].id).not.toBe(event.eventId);
    });

    it('deleting a subscription cancels what is queued for it', async () => {
      const env = otherEnvironment();
      const sub = (await subscribe('https://example.com/fan/cancel', env)).body;
      const event = await appendEvent(t, { environmentId: env.environment, occurredAt: new Date() });
      await queued(t, event.eventId);
      await t.request('DELETE', `/webhooks/${sub.id}`, env);
      const [row] = await eventually(async () => {
        const rows = await deliveriesFor(t, event.eventId);
        return rows[0]?.status === 'cancelled' ? rows : null;
      });
      expect(row.status).toBe('cancelled');
      const listed = await t.request('GET', `/webhooks/${sub.id}/deliveries`, env);
      expect(listed.body.items[0].status).toBe('cancelled');
    });

    it('pages newest first', async () => {
      const env = otherEnvironment();
      const sub = (await subscribe('https://example.com/fan/paging', env)).body;
      const events = [];
      for (let i = 0; i < 3; i++) events.push(await appendEvent(t, { environmentId: env.environment, occurredAt: new Date() }));
      await queued(t, events[2].eventId);
      await queued(t, events[0].eventId);
      const first = await t.request('GET', `/webhooks/${sub.id}/deliveries?limit=2`, env);
      expect(first.body.items.map((d: any) => d.notificationId)).toEqual([events[2].eventId, events[1].eventId]);
      const second = await t.request('GET', `/webhooks/${sub.id}/deliveries?limit=2&pageToken=${first.body.nextPageToken}`, env);
      expect(second.body.items.map((d: any) => d.notificationId)).toEqual([events[0].eventId]);
      expect(second.body.nextPageToken).toBeNull();
    });

    it('404 for another environment subscription, 422 for a bad limit, 401, 403', async () => {
      const sub = (await subscribe('https://example.com/fan/private')).body;
      expectProblem(await t.request('GET', `/webhooks/${sub.id}/deliveries`, otherEnvironment()), 404, 'not-found');
      expectProblem(await t.request('GET', `/webhooks/${randomUUID()}/deliveries`), 404, 'not-found');
      const bad = await t.request('GET', `/webhooks/${sub.id}/deliveries?limit=0`);
      expectProblem(bad, 422, 'validation-failed');
      expect(bad.body.errors).toEqual([{ pointer: '/query/limit', detail: 'must be an integer from 1 to 100' }]);
      expectProblem(await t.request('GET', `/webhooks/${sub.id}/deliveries`, { token: null }), 401, 'unauthorized');
      expectProblem(await t.request('GET', `/webhooks/${sub.id}/deliveries`, { environment: randomUUID() }), 403, 'forbidden-environment');
    });
  });

  describe('POST /webhooks/deliveries/{deliveryId}/redeliver', () => {
    it('202 and the delivery is pending again, due now; 404 from another environment; 409 once deleted', async () => {
      const env = otherEnvironment();
      const sub = (await subscribe('https://example.com/redeliver', env)).body;
      const event = await appendEvent(t, { environmentId: env.environment, occurredAt: new Date() });
      const [row] = await queued(t, event.eventId);
      await t.dataSource.query(`update webhook_deliveries set status = 'discarded', next_attempt_at = null where id = $1`, [row.id]);
      const accepted = await t.request('POST', `/webhooks/deliveries/${row.id}/redeliver`, env);
      expect(accepted.status).toBe(202);
      expect(accepted.body).toMatchObject({ id: row.id, status: 'pending', notificationId: event.eventId });
      const [after] = await t.dataSource.query(`select status, redelivery, next_attempt_at from webhook_deliveries where id = $1`, [row.id]);
      expect(after).toMatchObject({ status: 'pending', redelivery: true });
      expectProblem(await t.request('POST', `/webhooks/deliveries/${row.id}/redeliver`, otherEnvironment()), 404, 'not-found');
      expectProblem(await t.request('POST', `/webhooks/deliveries/${randomUUID()}/redeliver`, env), 404, 'not-found');
      expectProblem(await t.request('POST', `/webhooks/deliveries/${row.id}/redeliver`, { token: null }), 401, 'unauthorized');
      expectProblem(await t.request('POST', `/webhooks/deliveries/${row.id}/redeliver`, { environment: randomUUID() }), 403, 'forbidden-environment');
      await t.request('DELETE', `/webhooks/${sub.id}`, env);
      expectProblem(await t.request('POST', `/webhooks/deliveries/${row.id}/redeliver`, env), 409, 'webhook-not-active');
    });
  });

  describe('conventions shared with the other contexts', () => {
    const MALFORMED_IDS = ['not-a-uuid', '123', '8f49c2a4-6a3e-4b1e-9d7a-1c2b3d4e5f601', '8f49c2a4-6a3e-4b1e-9d7a-1c2b3d4e5f6g', '%20'];
    const ROUTES: Array<[string, (id: string) => string]> = [
      ['DELETE', (id) => `/webhooks/${id}`],
      ['PUT', (id) => `/webhooks/${id}/rotate-key`],
      ['GET', (id) => `/webhooks/${id}/deliveries`],
      ['POST', (id) => `/webhooks/deliveries/${id}/redeliver`],
    ];

    it.each(ROUTES.flatMap(([method, path]) => MALFORMED_IDS.map((id) => [method, path(id)] as const)))(
      'a malformed path id answers 404 not-found (problem+json): %s %s',
      async (method, path) => {
        const response = await t.request(method, path);
        expectProblem(response, 404, 'not-found');
      },
    );

    it('the same routes answer 404 for a well-formed unknown id, and accept an existing id in upper case', async () => {
      for (const [method, path] of ROUTES) expectProblem(await t.request(method, path(randomUUID())), 404, 'not-found');
      const { body } = await subscribe('https://example.com/hooks/upper-case-id');
      const listed = await t.request('GET', `/webhooks/${body.id.toUpperCase()}/deliveries`);
      expect(listed.status).toBe(200);
      const rotated = await t.request('PUT', `/webhooks/${body.id.toUpperCase()}/rotate-key`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.id).toBe(body.id);
    });

    it.each([
      ['/webhooks?status=active', '/query/status', 'unknown query parameter'],
      ['/webhooks?limit=5&Limit=5', '/query/Limit', 'unknown query parameter'],
      ['/webhooks?limit=5&limit=6', '/query/limit', 'must be given once'],
      ['/webhooks/SUB/deliveries?status=pending', '/query/status', 'unknown query parameter'],
      ['/webhooks/SUB/deliveries?pageToken=a&pageToken=b', '/query/pageToken', 'must be given once'],
    ])('GET %s is a 422 at the query parameter', async (template, pointer, detail) => {
      const { body } = await subscribe('https://example.com/hooks/query-params');
      const response = await t.request('GET', template.replace('SUB', body.id));
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual([{ pointer, detail }]);
    });

    it('answers an unknown query parameter exactly as the invoice list does', async () => {
      const webhooks = await t.request('GET', '/webhooks?unknown=1');
      const invoices = await t.request('GET', '/invoices?unknown=1');
      expect(invoices.status).toBe(422);
      const shape = (r: typeof webhooks) => ({ status: r.status, type: r.body.type, errors: r.body.errors });
      expect(shape(webhooks)).toEqual(shape(invoices));
    });

    it('the known parameters still work on both lists', async () => {
      const { body } = await subscribe('https://example.com/hooks/known-params');
      await subscribe('https://example.com/hooks/known-params-2');
      const first = await t.request('GET', '/webhooks?limit=1');
      expect(first.status).toBe(200);
      const next = await t.request('GET', `/webhooks?limit=1&pageToken=${first.body.nextPageToken}`);
      expect(next.status).toBe(200);
      expect(next.body.items[0].id).not.toBe(first.body.items[0].id);
      expect((await t.request('GET', `/webhooks/${body.id}/deliveries?limit=1`)).status).toBe(200);
    });
  });

  describe('documentation', () => {
    it('describes every webhook operation in OpenAPI and serves the problem types', async () => {
      const { body } = await t.request('GET', '/openapi.json', { token: null, environment: null });
      expect(Object.keys(body.paths['/webhooks/subscribe'])).toEqual(['put']);
      expect(body.paths['/webhooks/subscribe'].put.responses['200'].content['application/json'].schema.$ref).toMatch(/WebhookSubscriptionResponse$/);
      expect(body.paths['/webhooks/subscribe'].put.parameters).toContainEqual(expect.objectContaining({ name: 'X-version', in: 'header' }));
      expect(Object.keys(body.paths['/webhooks/{id}'])).toEqual(['delete']);
      expect(body.paths['/webhooks/{id}'].delete.responses['204']).toBeDefined();
      expect(body.paths['/webhooks/{id}/rotate-key'].put.responses['409']).toBeDefined();
      expect(body.paths['/webhooks/{id}/deliveries'].get.responses['200']).toBeDefined();
      expect(body.paths['/webhooks/deliveries/{deliveryId}/redeliver'].post.responses['202']).toBeDefined();
      for (const code of ['forbidden-address', 'insecure-url', 'invalid-url', 'unknown-version', 'webhook-not-active']) {
        const problem = await t.request('GET', `/problems/${code}`, { token: null, environment: null });
        expect(problem.status).toBe(200);
        expect(problem.body.type).toBe(`/problems/${code}`);
      }
    });
  });
});
