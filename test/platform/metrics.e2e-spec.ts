import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '@billing/testing';
import { NOTES_READ_MODEL_SQL, notesContext } from '../fixtures/notes-context';

describe('GET /metrics', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extraContexts: [notesContext], setupSql: [NOTES_READ_MODEL_SQL] });
  });
  afterAll(() => t.close());

  it('serves Prometheus text with latency by route template, projector lag and webhook figures, without a token', async () => {
    const id = randomUUID();
    expect((await t.request('PUT', `/test-notes/${id}`, { body: { title: 'a' } })).status).toBe(201);
    expect((await t.request('GET', `/test-notes/${id}`)).status).toBe(200);
    expect((await t.request('GET', `/test-notes/${randomUUID()}`)).status).toBe(404);

    const response = await t.request('GET', '/metrics', { token: null, environment: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = response.text;
    expect(text).toMatch(/http_request_duration_seconds_count\{method="PUT",route="\/test-notes\/:id",status="201"\} 1/);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/test-notes\/:id",status="200"\} 1/);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/test-notes\/:id",status="404"\} 1/);
    expect(text).not.toContain(id);
    expect(text).toMatch(/projector_events_behind\{subscriber="test-notes",kind="projection"\} 0/);
    expect(text).toMatch(/projector_events_behind\{subscriber="webhooks.fan-out",kind="reactor"\} \d+/);
    expect(text).toMatch(/webhook_deliveries_pending \d+/);
    expect(text).toMatch(/payment_collections_due \d+/);
    // The invoice documents' backlog is their reactor's lag.
    expect(text).toMatch(/projector_events_behind\{subscriber="templates.invoice-documents",kind="reactor"\} \d+/);
    expect(text).toContain('# TYPE webhook_deliveries_total counter');
  });
});
