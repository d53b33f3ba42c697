import { sign } from 'jsonwebtoken';
import { expectProblem, startTestApp, TEST_JWT_SECRET, TestApp } from '@billing/testing';
import { rawHttp } from './raw-http';

/**
 * What every route passes through before its handler: token rules, the order
 * of authentication and body reading, time limits, and the problem bodies of
 * errors raised by the HTTP layer itself.
 */
describe('The HTTP edge', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { JWT_MAX_TTL_SECONDS: '3600', REQUEST_TIMEOUT_MS: '1500', HEADERS_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => t.close());

  const list = (token: string | null, headers?: Record<string, string>) => t.request('GET', '/invoices', { token, headers });

  describe('tokens', () => {
    it('accepts a token with exp within the maximum lifetime', async () => {
      expect((await list(t.token([t.environmentId], { expiresIn: 3600 }))).status).toBe(200);
    });

    it('refuses a token without exp (it would never expire)', async () => {
      const token = sign({ environments: [t.environmentId], sub: 'x' }, TEST_JWT_SECRET, { algorithm: 'HS256' });
      expectProblem(await list(token), 401, 'unauthorized');
    });

    it('refuses a lifetime longer than JWT_MAX_TTL_SECONDS, measured from iat', async () => {
      expectProblem(await list(t.token([t.environmentId], { expiresIn: 3601 })), 401, 'unauthorized');
    });

    it('refuses a lifetime longer than the maximum when iat is absent, measured from now', async () => {
      const exp = Math.floor(Date.now() / 1000) + 7200;
      const token = sign({ environments: [t.environmentId], exp }, TEST_JWT_SECRET, { algorithm: 'HS256', noTimestamp: true });
      expectProblem(await list(token), 401, 'unauthorized');
    });

    it('refuses anything after the token in the Authorization header', async () => {
      expectProblem(await list(null, { authorization: `Bearer ${t.token()} junk` }), 401, 'unauthorized');
      expectProblem(await list(null, { authorization: `Bearer  ${t.token()}` }), 401, 'unauthorized');
      expectProblem(await list(null, { authorization: `bearer ${t.token()}` }), 401, 'unauthorized');
    });

    it('stops accepting a remembered token the moment it expires', async () => {
      const token = t.token([t.environmentId], { expiresIn: 2 });
      expect((await list(token)).status).toBe(200);
      expect((await list(token)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expectProblem(await list(token), 401, 'unauthorized');
    });

    it('refuses a validly signed payload that is not a JSON object', async () => {
      for (const payload of ['"hello"', '[1,2]', '42', 'not json']) {
        const token = signRaw(payload);
        expectProblem(await list(token), 401, 'unauthorized');
      }
    });
  });

  describe('bodies and time limits', () => {
    it('answers an anonymous request carrying a body 401 before reading it, and closes the connection', async () => {
      const head = `POST /invoices HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n`;
      const exchange = await rawHttp(t.baseUrl, `${head}{"customer":`, 3000);
      expect(exchange.status).toBe(401);
      expect(exchange.closed).toBe(true);
      expectRawProblem(exchange, 'unauthorized');
    });

    it('answers a forged token on a body-carrying request 401 without reading the body', async () => {
      const forged = t.token([t.environmentId], {}, 'another-secret');
      const head = `PUT /webhooks/subscribe HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${forged}\r\nContent-Type: application/json\r\nContent-Length: 500000\r\n\r\n`;
      const exchange = await rawHttp(t.baseUrl, head, 3000);
      expect([exchange.status, exchange.closed]).toEqual([401, true]);
    });

    it('closes a connection whose headers never finish, with a 408 problem', async () => {
      const exchange = await rawHttp(t.baseUrl, 'GET /invoices HTTP/1.1\r\nHost: x\r\n', 8000);
      expect(exchange.closed).toBe(true);
      expect(exchange.status).toBe(408);
      expectRawProblem(exchange, 'request-timeout');
    });

    it('closes an authenticated request whose body never finishes, with a 408 problem', async () => {
      const head =
        `POST /invoices HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token()}\r\nx-environment: ${t.environmentId}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"customer":`;
      const exchange = await rawHttp(t.baseUrl, head, 8000);
      expect(exchange.closed).toBe(true);
      expect(exchange.status).toBe(408);
    });
  });

  describe('errors the HTTP layer raises', () => {
    it('answers bad percent-encoding in the path with a 400 problem', async () => {
      expectProblem(await t.request('GET', '/invoices/%E0%A4%A'), 400, 'malformed-request');
    });

    it('answers an over-long path segment with a 414 problem', async () => {
      expectProblem(await t.request('GET', `/tax-codes/${'a'.repeat(600)}`), 414, 'uri-too-long');
    });

    it('answers oversized headers with a 431 problem and closes', async () => {
      const exchange = await rawHttp(t.baseUrl, `GET /invoices HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect([exchange.status, exchange.closed]).toEqual([431, true]);
      expectRawProblem(exchange, 'headers-too-large');
    });

    it('answers a request that is not HTTP with a 400 problem', async () => {
      const exchange = await rawHttp(t.baseUrl, 'HELLO\r\n\r\n');
      expect(exchange.status).toBe(400);
      expectRawProblem(exchange, 'malformed-request');
    });
  });

  describe('text that cannot be stored', () => {
    it.each([
      [
        'U+0000 in a value',
        '{"customer":{"id":"00000000-0000-4000-8000-000000000000","handle":"a\\u0000b","name":null},"currency":"EUR","items":[]}',
        '/customer/handle',
      ],
      ['an unpaired high surrogate', '{"memo":"\\ud800","currency":"EUR"}', '/memo'],
      ['an unpaired low surrogate', '{"memo":"x\\udc00","currency":"EUR"}', '/memo'],
      ['a reversed pair', '{"memo":"\\udc00\\ud800","currency":"EUR"}', '/memo'],
      ['U+0000 in a key', '{"a\\u0000":1}', '/a\u0000'],
    ])('refuses %s with a 422 naming the member', async (_name, rawBody, pointer) => {
      expectProblem(await t.request('POST', '/invoices', { rawBody }), 422, 'invalid-text', pointer);
    });

    it('keeps valid astral characters and emoji', async () => {
      const response = await t.request('POST', '/tax-codes', { body: { code: 'EMOJI', rate: 0.1, taxable: true, description: 'ok 😀 𝄞 ä ø ł €' } });
      expect(response.status).toBe(201);
      expect(response.body.description).toBe('ok 😀 𝄞 ä ø ł €');
    });

    it('answers a path parameter holding U+0000 or a broken surrogate with 404', async () => {
      expectProblem(await t.request('GET', '/tax-codes/%00'), 404, 'not-found');
      expectProblem(await t.request('PUT', '/tax-codes/a%00b', { body: { rate: 5 } }), 404, 'not-found');
      expectProblem(await t.request('GET', '/tax-codes/%ED%A0%80'), 400, 'malformed-request');
    });

    it('answers a query parameter holding U+0000 with a 422 at /query/<name>', async () => {
      expectProblem(await t.request('GET', '/invoices?customerId=%00'), 422, 'invalid-text', '/query/customerId');
    });
  });

  describe('nesting', () => {
    it.each([100, 5000, 100_000])('refuses JSON nested %i levels with a 400 problem', async (depth) => {
      const rawBody = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      for (const path of ['/invoices', '/tax-codes', '/prices', '/products']) {
        expectProblem(await t.request('POST', path, { rawBody }), 400, 'malformed-request');
      }
      expectProblem(await t.request('PUT', '/webhooks/subscribe', { rawBody: `{"url":${rawBody}}` }), 400, 'malformed-request');
    });
  });

  function signRaw(payload: string): string {
    const { createHmac } = require('node:crypto') as typeof import('node:crypto');
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
    const body = Buffer.from(payload).toString('base64url');
    const signature = createHmac('sha256', TEST_JWT_SECRET).update(`${header}.${body}`).digest('base64url');
    return `${header}.${body}.${signature}`;
  }

  function expectRawProblem(exchange: { response: string; body: any }, code: string): void {
    expect(exchange.response.toLowerCase()).toContain('content-type: application/problem+json');
    expect(exchange.body).toMatchObject({ type: `/problems/${code}` });
  }
});
