import { randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { startTestApp, TestApp } from '@billing/testing';
import { NOTES_READ_MODEL_SQL, notesContext } from './fixtures/notes-context';

const PROBLEM = 'application/problem+json';

describe('Foundation over HTTP', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extraContexts: [notesContext], setupSql: [NOTES_READ_MODEL_SQL] });
  });
  afterAll(() => t.close());

  function expectProblem(response: { status: number; headers: Headers; body: any }, status: number, type: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain(PROBLEM);
    expect(response.body).toMatchObject({
      type: `/problems/${type}`,
      status,
      title: expect.any(String),
      detail: expect.any(String),
      instance: expect.any(String),
    });
  }

  describe('authentication (401)', () => {
    const path = () => `/test-notes/${randomUUID()}`;

    it('rejects a missing token', async () => {
      const response = await t.request('GET', path(), { token: null });
      expectProblem(response, 401, 'unauthorized');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    });

    it('rejects a malformed token', async () => {
      expectProblem(await t.request('GET', path(), { token: 'not.a.jwt' }), 401, 'unauthorized');
    });

    it('rejects an expired token', async () => {
      const expired = t.token([t.environmentId], { expiresIn: -10 });
      expectProblem(await t.request('GET', path(), { token: expired }), 401, 'unauthorized');
    });

    it('rejects a token signed with another secret', async () => {
      expectProblem(await t.request('GET', path(), { token: t.token([t.environmentId], {}, 'another-secret') }), 401, 'unauthorized');
    });

    it('rejects alg none', async () => {
      const unsigned = sign({ environments: [t.environmentId], sub: 'x' }, '', { algorithm: 'none' });
      expectProblem(await t.request('GET', path(), { token: unsigned }), 401, 'unauthorized');
    });

    it('rejects an algorithm outside the pinned list (HS512)', async () => {
      const hs512 = sign({ environments: [t.environmentId] }, 'test-secret-for-e2e-only', { algorithm: 'HS512' });
      expectProblem(await t.request('GET', path(), { token: hs512 }), 401, 'unauthorized');
    });

    it('rejects a non-Bearer scheme', async () => {
      expectProblem(await t.request('GET', path(), { token: null, headers: { authorization: `Basic ${t.token()}` } }), 401, 'unauthorized');
    });
  });

  describe('environments', () => {
    it('400 when x-environment is missing', async () => {
      const response = await t.request('GET', `/test-notes/${randomUUID()}`, { environment: null });
      expectProblem(response, 400, 'invalid-environment-header');
      expect(response.body.errors).toEqual([{ pointer: '/headers/x-environment', detail: 'is required' }]);
    });

    it('400 when x-environment is not a uuid', async () => {
      expectProblem(await t.request('GET', `/test-notes/${randomUUID()}`, { environment: 'prod' }), 400, 'invalid-environment-header');
    });

    it('403 when the token does not list the environment', async () => {
      expectProblem(await t.request('GET', `/test-notes/${randomUUID()}`, { environment: randomUUID() }), 403, 'forbidden-environment');
    });

    it('403 when the token has no environments claim', async () => {
      const noClaim = sign({ sub: 'x' }, 'test-secret-for-e2e-only', { algorithm: 'HS256', expiresIn: 60 });
      expectProblem(await t.request('GET', `/test-notes/${randomUUID()}`, { token: noClaim }), 403, 'forbidden-environment');
    });

    it('404 for an id that exists only in another environment, never its data', async () => {
      const id = randomUUID();
      expect((await t.request('PUT', `/test-notes/${id}`, { body: { title: 'secret' } })).status).toBe(201);
      const other = randomUUID();
      const response = await t.request('GET', `/test-notes/${id}`, { environment: other, token: t.token([other]) });
      expectProblem(response, 404, 'not-found');
      expect(response.text).not.toContain('secret');
    });
  });

  describe('commands, events and read models', () => {
    it('returns the new state on an immediately following GET (read-your-writes)', async () => {
      for (let i = 0; i < 20; i++) {
        const id = randomUUID();
        const created = await t.request('PUT', `/test-notes/${id}`, { body: { title: `n${i}` } });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({ id, title: `n${i}`, version: 1 });
        const renamed = await t.request('POST', `/test-notes/${id}/rename`, { body: { title: `r${i}` } });
        expect(renamed.body).toMatchObject({ title: `r${i}`, version: 2 });
        expect((await t.request('GET', `/test-notes/${id}`)).body).toMatchObject({ title: `r${i}`, version: 2 });
      }
    });

    it('409 when creating a stream that exists', async () => {
      const id = randomUUID();
      await t.request('PUT', `/test-notes/${id}`, { body: { title: 'a' } });
      expectProblem(await t.request('PUT', `/test-notes/${id}`, { body: { title: 'b' } }), 409, 'stream-exists');
    });

    it('409 for a stale If-Match, 200 for the current one', async () => {
      const id = randomUUID();
      const created = await t.request('PUT', `/test-notes/${id}`, { body: { title: 'a' } });
      expect(created.headers.get('etag')).toBe('"1"');
      expect((await t.request('POST', `/test-notes/${id}/rename`, { body: { title: 'b' }, headers: { 'if-match': '"1"' } })).status).toBe(200);
      expectProblem(await t.request('POST', `/test-notes/${id}/rename`, { body: { title: 'c' }, headers: { 'if-match': '"1"' } }), 409, 'version-conflict');
    });

    it('records actor, request id and correlation id in event metadata', async () => {
      const id = randomUUID();
      await t.request('PUT', `/test-notes/${id}`, { body: { title: 'a' }, headers: { 'x-request-id': 'req-abc', 'x-correlation-id': 'corr-xyz' } });
      const [row] = await t.dataSource.query(`select metadata, event_type, schema_version, environment_id from events where stream_id = $1`, [id]);
      expect(row).toMatchObject({
        event_type: 'NoteCreated',
        schema_version: 1,
        environment_id: t.environmentId,
        metadata: { actor: 'test-user', requestId: 'req-abc', correlationId: 'corr-xyz', causationId: null },
      });
    });
  });

  describe('problem details', () => {
    it('400 for malformed JSON', async () => {
      expectProblem(await t.request('PUT', `/test-notes/${randomUUID()}`, { rawBody: '{"title":' }), 400, 'malformed-request');
    });

    it('415 for a body that is not JSON', async () => {
      expectProblem(
        await t.request('PUT', `/test-notes/${randomUUID()}`, { rawBody: 'title=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        415,
        'unsupported-media-type',
      );
      expectProblem(
        await t.request('PUT', `/test-notes/${randomUUID()}`, { rawBody: 'a', headers: { 'content-type': 'text/plain' } }),
        415,
        'unsupported-media-type',
      );
    });

    it('413 for a body over the limit', async () => {
      const response = await t.request('PUT', `/test-notes/${randomUUID()}`, { body: { title: 'x'.repeat(1024 * 1024 + 10) } });
      expectProblem(response, 413, 'payload-too-large');
    });

    it('404 for an unknown route', async () => {
      expectProblem(await t.request('GET', '/no-such-route'), 404, 'route-not-found');
    });

    it('422 with JSON pointers for invalid fields and unknown properties', async () => {
      const response = await t.request('PUT', `/test-notes/${randomUUID()}`, { body: { title: '', colour: 'red' } });
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors).toEqual(
        expect.arrayContaining([
          { pointer: '/title', detail: expect.stringContaining('longer than or equal to 1') },
          { pointer: '/colour', detail: 'unknown property: not accepted here' },
        ]),
      );
    });

    it('500 with a generic body: no stack, no SQL; the request id is returned', async () => {
      const response = await t.request('POST', '/test-notes/boom', { headers: { 'x-request-id': 'req-500' } });
      expectProblem(response, 500, 'internal-error');
      expect(response.text).not.toMatch(/secret_table|at \w+ \(/);
      expect(response.body.requestId).toBe('req-500');
      expect(response.headers.get('x-request-id')).toBe('req-500');
    });
  });

  describe('operations and API description', () => {
    it('serves liveness and readiness without credentials', async () => {
      expect((await t.request('GET', '/health/live', { token: null, environment: null })).body).toEqual({ status: 'ok' });
      expect((await t.request('GET', '/health/ready', { token: null, environment: null })).body).toMatchObject({ checks: { database: 'ok' } });
    });

    it('returns a request id header on every response', async () => {
      const response = await t.request('GET', '/health/live');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('serves the problem catalogue that type URIs point to', async () => {
      const response = await t.request('GET', '/problems/validation-failed', { token: null, environment: null });
      expect(response.body).toMatchObject({ type: '/problems/validation-failed', status: 422 });
    });

    it('serves an OpenAPI 3 document declaring bearer auth and x-environment on every operation', async () => {
      const { body } = await t.request('GET', '/openapi.json', { token: null, environment: null });
      expect(body.openapi).toMatch(/^3\./);
      expect(body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      const operations = Object.values(body.paths).flatMap((item: any) => Object.values(item)) as any[];
      expect(operations.length).toBeGreaterThan(0);
      for (const operation of operations) {
        expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/Environment' });
      }
      expect(body.security).toEqual([{ bearer: [] }]);
      expect((await t.request('GET', '/docs', { token: null, environment: null })).status).toBe(200);
    });
  });
});
