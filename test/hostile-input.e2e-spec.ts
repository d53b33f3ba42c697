import { createHmac, randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { expectProblem, startTestApp, TEST_JWT_SECRET, TestApp } from '@billing/testing';
import { rawHttp } from './platform/raw-http';

/** Hostile input of issue 20 (#14, #15, #16, #19, #20, #21): each answers a 4xx problem, never a 500. */

/** A JWT over any payload text, signed with the test secret: jsonwebtoken refuses to sign a non-object. */
function signedJwt(payload: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const body = Buffer.from(payload).toString('base64url');
  const signature = createHmac('sha256', TEST_JWT_SECRET).update(`${header}.${body}`).digest('base64url');
  return `${header}.${body}.${signature}`;
}

describe('hostile input (issue 20)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { LOG_PAGE_MAX_BYTES: '65536' } });
  });
  afterAll(() => t.close());

  const newInvoice = (memo = 'm') =>
    t.request('POST', '/invoices', {
      body: { customer: { id: randomUUID(), handle: 'c', name: 'n' }, currency: 'EUR', memo, items: [{ quantity: 1, unitAmount: 100 }] },
    });

  it('issue 20 #14: a validly signed JWT whose payload is not an object is a 401', async () => {
    for (const payload of ['null', '5', '[1]', '"x"', 'true']) {
      for (const [method, path] of [
        ['GET', '/invoices'],
        ['POST', '/products'],
      ]) {
        const r = await t.request(method, path, { token: signedJwt(payload), ...(method === 'POST' ? { body: { name: 'p' } } : {}) });
        expectProblem(r, 401, 'unauthorized');
        expect([payload, r.headers.get('www-authenticate')]).toEqual([payload, 'Bearer']);
      }
    }
  });

  it('issue 20 #16: a token whose sub is not 1-255 printable characters, or claims a system: actor, is a 401', async () => {
    const bad = ['a\u0000b', '\ud800', 'x\udc00', '', ' ', 'a\nb', 'x'.repeat(256), 'system:billing-engine', 'system:'];
    for (const sub of bad) {
      const token = sign({ environments: [t.environmentId], sub }, TEST_JWT_SECRET, { algorithm: 'HS256', expiresIn: 3600 });
      const r = await t.request('POST', '/products', { token, body: { name: 'p' } });
      expect([JSON.stringify(sub), r.status, r.headers.get('www-authenticate')]).toEqual([JSON.stringify(sub), 401, 'Bearer']);
      expectProblem(r, 401, 'unauthorized');
    }
    for (const token of [
      sign({ environments: [t.environmentId] }, TEST_JWT_SECRET, { algorithm: 'HS256', expiresIn: 3600 }),
      signedJwt(JSON.stringify({ environments: [t.environmentId], sub: 5, exp: Math.floor(Date.now() / 1000) + 60 })),
    ]) {
      expectProblem(await t.request('GET', '/products', { token }), 401, 'unauthorized');
    }
    const ok = sign({ environments: [t.environmentId], sub: 'ünïcode user 🙂' }, TEST_JWT_SECRET, { algorithm: 'HS256', expiresIn: 3600 });
    const created = await t.request('POST', '/products', { token: ok, body: { name: 'p' }, headers: { 'x-request-id': 'not a token \u00e9' } });
    expect(created.status).toBe(201);
    const log = await t.request('GET', `/products/${created.body.id}/history`);
    const [event] = log.body.items;
    expect(event.actor).toBe('ünïcode user 🙂');
    expect(event.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const tagged = await t.request('POST', '/products', { body: { name: 'p' }, headers: { 'x-request-id': 'req-42.a:b' } });
    expect((await t.request('GET', `/products/${tagged.body.id}/history`)).body.items[0].requestId).toBe('req-42.a:b');
  });

  it('issue 20 #20: errors answered before any route runs are problem+json (431, NUL in x-environment, control characters in Idempotency-Key)', async () => {
    const host = `Host: 127.0.0.1\r\nAuthorization: Bearer ${t.token()}\r\n`;
    const cases: [string, number][] = [
      [`GET /invoices HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${'a'.repeat(40_000)}\r\n\r\n`, 431],
      [`GET /invoices HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\u0000\r\n\r\n`, 400],
      [
        `POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nIdempotency-Key: a\u0001b\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"p"}`,
        400,
      ],
      [
        `POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nIdempotency-Key: a\u007fb\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"p"}`,
        400,
      ],
      [`GET /invoices HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nX-Thing: a\rb\r\n\r\n`, 400],
      [`GET /invoices HTTP/9.9\r\n${host}\r\n\r\n`, 400],
      [`GET /%zz HTTP/1.1\r\n${host}\r\n\r\n`, 400],
      [`GET /invoices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`, 400],
      [
        `POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nIdempotency-Key: a\tb\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"p"}`,
        400,
      ],
      [
        `POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nIdempotency-Key: a\u00ffb\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"p"}`,
        400,
      ],
      [
        `POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\u00ff\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"p"}`,
        400,
      ],
      [`POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nContent-Type: application/xml\r\nContent-Length: 12\r\n\r\n{"name":"p"}`, 415],
      [`POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"name":"p"`, 400],
      [`POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n`, 400],
      [`PROPFIND /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\n\r\n`, 404],
      [`GET /nothing-here HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nConnection: close\r\n\r\n`, 404],
      [`POST /products HTTP/1.1\r\n${host}X-Environment: ${t.environmentId}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{}`, 413],
    ];
    for (const [head, status] of cases) {
      const r = await rawHttp(t.baseUrl, head.includes('Connection:') ? head : head.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
      const contentType = /\r\ncontent-type: ([^\r]*)/i.exec(r.response)?.[1];
      const request = JSON.stringify(head.slice(0, 60));
      expect([request, r.status, contentType]).toEqual([request, status, 'application/problem+json; charset=utf-8']);
      expect(r.body).toMatchObject({ status, type: expect.stringMatching(/^\/problems\//), title: expect.any(String) });
    }
  });

  it('issue 20 #15: a forged pageToken is a 422 at /query/pageToken on every list', async () => {
    await newInvoice();
    const invoice = (await newInvoice()).body;
    const product = (await t.request('POST', '/products', { body: { name: 'p' } })).body;
    const webhook = await t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://example.com/h' } });
    expect([invoice.id, product.id, webhook.body.id]).toEqual([expect.any(String), expect.any(String), expect.any(String)]);
    const lists = [
      '/products',
      '/prices',
      '/invoices',
      '/tax-codes',
      '/templates',
      '/payments',
      '/payments?orderBy=-amount',
      '/payments?orderBy=createdAt',
      '/webhooks',
      `/webhooks/${webhook.body.id}/deliveries`,
      '/billable-metrics',
      '/subscriptions',
      '/events',
      `/invoices/${invoice.id}/history`,
      `/products/${product.id}/history`,
    ];
    const encode = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
    const values: unknown[] = ['a\u0000', '\ud800', 'x\udc00', 1e308, -1, 2 ** 53 + 1, null, [], {}, '9'.repeat(400)];
    const members = [['position'], ['code'], ['seq'], ['createdAt', 'id'], ['order', 'value', 'id'], ['s', 'f']];
    const tokens = [
      ...members.flatMap((names) => values.map((value) => encode(Object.fromEntries(names.map((name) => [name, value]))))),
      ...['null', '5', '"x"', '[]', '{}', '\u0000', '{"position":"1","extra":1}', '{"s":1,"f":"x","position":"1"}'].map(encode),
      'AA',
      '%%%',
      'a'.repeat(3000),
      encode({ code: 'ok' }).replace(/.$/, '!'),
    ];
    // A token of another filter or another list is no token of this one.
    const typed = await t.request('GET', '/events?limit=1&type=InvoiceCreated');
    const invoicesPage = await t.request('GET', '/invoices?limit=1');
    expect([typed.body.nextPageToken === null, invoicesPage.status]).toEqual([false, 200]);
    for (const list of lists) {
      const foreign = list === '/events' ? [typed.body.nextPageToken] : [];
      const answers = await Promise.all(
        [...tokens, ...foreign].map(async (token) => {
          const r = await t.request('GET', `${list}${list.includes('?') ? '&' : '?'}pageToken=${encodeURIComponent(token)}`);
          return [`${list} ${token.slice(0, 40)}`, r.status, r.body?.errors?.[0]?.pointer];
        }),
      );
      expect(answers).toEqual(answers.map(([label]) => [label, 422, '/query/pageToken']));
    }
  });

  it('issue 20 #19: a page of GET /events stays under its byte bound, and paging and the export reach every event exactly once', async () => {
    const description = 'd'.repeat(4000);
    for (let i = 0; i < 12; i++) {
      const r = await t.request('POST', '/invoices', {
        body: {
          customer: { id: randomUUID(), handle: 'c', name: 'n' },
          currency: 'EUR',
          items: Array.from({ length: 5 }, () => ({ quantity: 1, unitAmount: 100, description })),
        },
      });
      expect(r.status).toBe(201);
    }
    const seen: string[] = [];
    let pages = 0;
    let path = '/events?limit=100';
    for (;;) {
      const r = await t.request('GET', path);
      expect([r.status, Buffer.byteLength(r.text) <= 65536]).toEqual([200, true]);
      pages++;
      seen.push(...r.body.items.map((item: { id: string }) => item.id));
      if (r.body.nextPageToken === null) break;
      path = `/events?limit=100&pageToken=${r.body.nextPageToken}`;
    }
    const exported = await t.request('GET', '/events/export');
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).id as string);
    expect(pages).toBeGreaterThan(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(lines);
    expect(lines.length).toBeGreaterThanOrEqual(12);
  });

  it('issue 20 #21: 2026-02-30 and T24:00:00 are refused by every date-time check, in bodies and queries', async () => {
    for (const bad of ['2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z']) {
      expectProblem(await t.request('POST', '/test-clock/advance', { body: { to: bad } }), 422, 'validation-failed', '/to');
      const event = { id: randomUUID(), subscriptionId: randomUUID(), metricCode: 'm', timestamp: bad };
      expectProblem(await t.request('POST', '/usage-events', { body: { events: [event] } }), 422, 'validation-failed', '/events/0/timestamp');
      expectProblem(await t.request('GET', `/subscriptions/${randomUUID()}/usage?from=${bad}`), 422, 'validation-failed', '/query/from');
      expectProblem(await t.request('GET', `/events?from=${bad}`), 422, 'validation-failed', '/query/from');
      expectProblem(await t.request('GET', `/payments?createdAt[gt]=${bad}`), 422, 'validation-failed');
    }
    expectProblem(await t.request('GET', '/events?to=2026-02-30'), 422, 'validation-failed', '/query/to');
  });

  it('issue 20 #21: a weak If-Match tag never matches: answered as a stale tag', async () => {
    const created = await t.request('POST', '/tax-codes', { body: { code: 'VAT22', rate: 0.22, taxable: true } });
    expect([created.status, created.headers.get('etag')]).toEqual([201, '"1"']);
    expectProblem(await t.request('PUT', '/tax-codes/VAT22', { body: { rate: 0.25 }, headers: { 'if-match': 'W/"1"' } }), 409, 'version-conflict');
    expect((await t.request('GET', '/tax-codes/VAT22')).body.rate).toBe(0.22);
    expect((await t.request('PUT', '/tax-codes/VAT22', { body: { rate: 0.25 }, headers: { 'if-match': '"1"' } })).status).toBe(200);
  });

  it('issue 20 #21: an unknown query parameter on a single-resource GET is a 422, as on the lists', async () => {
    const invoice = (await newInvoice()).body;
    const product = (await t.request('POST', '/products', { body: { name: 'p' } })).body;
    const taxCode = await t.request('POST', '/tax-codes', { body: { code: 'VAT21', rate: 0.21, taxable: true } });
    expect([invoice.id, product.id, taxCode.status]).toEqual([expect.any(String), expect.any(String), 201]);
    for (const [path, name] of [
      [`/products/${product.id}?asof=2020-01-01T00:00:00Z`, 'asof'],
      [`/invoices/${invoice.id}?x=1`, 'x'],
      [`/tax-codes/VAT21?asOf=2020-01-01T00:00:00Z&y=2`, 'y'],
      ['/paymentsettings?verbose=true', 'verbose'],
      ['/usage-settings?z=', 'z'],
      [`/invoices/${invoice.id}/html?lang=fi`, 'lang'],
    ]) {
      expectProblem(await t.request('GET', path), 422, 'validation-failed', `/query/${name}`);
    }
    expect((await t.request('GET', `/products/${product.id}`)).status).toBe(200);
  });

  it('issue 20 #21: the hint of a minimal provider key shows no more than a quarter of its secret part', async () => {
    const enabled = await t.request('POST', '/paymentproviders/enable', { body: { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_WXYZ' } } });
    expect([enabled.status, enabled.body.credentialsHint]).toEqual([200, 'Z']);
    const rotated = await t.request('POST', '/paymentproviders/enable', {
      body: { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_0123456789abcdef' } },
    });
    expect(rotated.body.credentialsHint).toBe('cdef');
  });
});
