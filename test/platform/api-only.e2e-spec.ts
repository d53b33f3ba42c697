import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '@billing/testing';
import { NOTES_READ_MODEL_SQL, notesContext } from '../fixtures/notes-context';

/**
 * A process that only serves the API (no worker anywhere) still answers its
 * writes with the new state, and the next GET sees it: the write runs its own
 * projections after the commit. Readiness reports the lag of everything else.
 */
describe('ROLES=api with no worker alive', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extraContexts: [notesContext], setupSql: [NOTES_READ_MODEL_SQL], env: { ROLES: 'api', READ_MODEL_TIMEOUT_MS: '2000' } });
  });
  afterAll(() => t.close());

  it('answers each write with its new state and serves it to the next GET', async () => {
    for (let i = 0; i < 10; i++) {
      const id = randomUUID();
      const created = await t.request('PUT', `/test-notes/${id}`, { body: { title: `n${i}` } });
      expect([created.status, created.body.title, created.headers.get('etag'), created.headers.get('location')]).toEqual([
        201,
        `n${i}`,
        '"1"',
        `/test-notes/${id}`,
      ]);
      const renamed = await t.request('POST', `/test-notes/${id}/rename`, { body: { title: `m${i}` }, headers: { 'if-match': '"1"' } });
      expect([renamed.status, renamed.headers.get('etag')]).toEqual([200, '"2"']);
      expect((await t.request('GET', `/test-notes/${id}`)).body).toMatchObject({ title: `m${i}`, version: 2 });
    }
  });

  it('reports projector lag on /health/ready: its own projection is current, the unrun reactor is behind', async () => {
    const ready = await t.request('GET', '/health/ready', { token: null, environment: null });
    expect(ready.status).toBe(200);
    expect(ready.body.projector['test-notes']).toMatchObject({ kind: 'projection', eventsBehind: 0 });
    expect(ready.body.projector['webhooks.fan-out']).toMatchObject({ kind: 'reactor' });
    expect(ready.body.projector['webhooks.fan-out'].eventsBehind).toBeGreaterThan(0);
  });
});
