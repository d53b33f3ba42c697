import { randomUUID } from 'node:crypto';
import { EventStore } from '@billing/event-store';
import { RenderPool, TEMPLATE_GROUP_STREAM_TYPE } from '@billing/templates';
import { eventually, startTestApp, TestApp } from '@billing/testing';

/**
 * A render bounded where it runs, with the render pool's time limit set below
 * liquidjs's own (500 ms against 1 s), so that it is the pool that stops an
 * endless template: a booking under a default group saved before templates
 * were dry-rendered at save falls back to the built-in template, and another
 * environment's document is still produced.
 */
describe('Render limits at booking', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { TEMPLATE_RENDER_TIMEOUT_MS: '500' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const ok = async (method: string, path: string, body: unknown, expected: number) => {
      const response = await t.request(method, path, { ...options, body });
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response.body;
    };
    return {
      id,
      ok,
      async bookedInvoice(): Promise<string> {
        const draft = await ok(
          'POST',
          '/invoices',
          {
            customer: { id: randomUUID(), handle: null, name: 'Customer' },
            currency: 'EUR',
            date: '2026-03-05',
            items: [{ title: 'Plan', quantity: 1, unitAmount: 1000 }],
          },
          201,
        );
        await ok('PUT', `/invoices/${draft.id}/book`, {}, 200);
        return draft.id;
      },
      async recorded(invoiceId: string): Promise<any> {
        const read = () =>
          t.dataSource.query(`select data from events where environment_id = $1 and stream_type = 'invoice-document' and stream_id = $2`, [id, invoiceId]);
        const [row] = await eventually(read, (rows: { data: unknown }[]) => rows.length === 1, { what: `the document of ${invoiceId}` });
        return row.data;
      },
    };
  }

  it("issue 20 #17: a template the pool stops at booking falls back to the built-in one (recorded), is not run again for the next booking under it, and another environment's document is produced", async () => {
    const hostile = environment();
    const group = await hostile.ok('POST', '/templates', { name: 'Saved before the dry render' }, 201);
    await hostile.ok('PUT', `/templates/${group.id}/default`, undefined, 200);
    const template = group.templates.find((candidate: { type: string }) => candidate.type === 'invoice_pdf');
    // What a save refuses now, as an older save recorded it.
    await t.app.get(EventStore).append(
      [
        {
          stream: { environmentId: hostile.id, streamType: TEMPLATE_GROUP_STREAM_TYPE, streamId: group.id },
          expectedVersion: 1,
          events: [
            {
              eventId: randomUUID(),
              type: 'TemplateContentUpdated',
              schemaVersion: 1,
              data: {
                templateGroupId: group.id,
                templateId: template.id,
                type: 'invoice_pdf',
                content: '{% for i in (1..1000) %}{% for j in (1..1000) %}{% assign m = j | money %}{% endfor %}{% endfor %}',
                updatedAt: new Date().toISOString(),
              },
              occurredAt: new Date(),
            },
          ],
        },
      ],
      { actor: 'test', requestId: null, correlationId: randomUUID(), causationId: null },
    );
    const other = environment();
    const pool = t.app.get(RenderPool);
    const stopped = {
      templateGroupId: null,
      templateGroupVersion: null,
      fallback: { templateGroupId: group.id, reason: expect.stringMatching(/did not finish within \d+ ms/) },
    };
    const first = await hostile.bookedInvoice();
    const elsewhere = await other.bookedInvoice();
    expect(await hostile.recorded(first)).toMatchObject(stopped);
    expect(await other.recorded(elsewhere)).toMatchObject({ templateGroupId: null, fallback: null });
    // The stopped thread was replaced; the next booking under the same group version does not run the template again.
    const threads = pool.threadsStarted;
    expect(threads).toBeGreaterThanOrEqual(2);
    const second = await hostile.bookedInvoice();
    expect(await hostile.recorded(second)).toMatchObject(stopped);
    expect(pool.threadsStarted).toBe(threads);
    const download = await fetch(`${t.baseUrl}/invoices/${elsewhere}/pdf`, {
      headers: { authorization: `Bearer ${t.token([other.id])}`, 'x-environment': other.id },
    });
    expect(download.status).toBe(200);
    expect(
      Buffer.from(await download.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });
});
