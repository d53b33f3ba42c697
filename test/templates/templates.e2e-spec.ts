import { randomUUID } from 'node:crypto';
import { EventStore } from '@billing/event-store';
import { expectProblem, startTestApp, TestApp, TestResponse } from '@billing/testing';
import { pdfText } from './pdf-text';

/**
 * Template groups over HTTP: every route and its errors, the syntax check on
 * save, environments (404 across them, 403 without access).
 */
describe('Templates API', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.request(method, path, { ...options, body, headers });
    const ok = async (method: string, path: string, body: unknown, expected: number, headers?: Record<string, string>): Promise<TestResponse> => {
      const response = await call(method, path, body, headers);
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    return { id, call, ok };
  }

  describe('POST /templates', () => {
    it('creates a group with the built-in template of every type, its ETag and Location', async () => {
      const env = environment();
      const response = await env.ok('POST', '/templates', { name: 'Nordic' }, 201);
      expect(response.body).toEqual({
        id: expect.any(String),
        name: 'Nordic',
        locale: 'en',
        isDefault: false,
        templates: [
          { id: expect.any(String), type: 'invoice_pdf', content: expect.stringContaining('{{ invoice.handle') },
          { id: expect.any(String), type: 'credit_note_pdf', content: expect.stringContaining('labels.creditNote') },
          { id: expect.any(String), type: 'invoice_email_html', content: expect.stringContaining('customer.name') },
        ],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.headers.get('location')).toBe(`/templates/${response.body.id}`);
      expect(new Set(response.body.templates.map((template: { id: string }) => template.id)).size).toBe(3);
      const fetched = await env.ok('GET', `/templates/${response.body.id}`, undefined, 200);
      expect(fetched.body).toEqual(response.body);
      expect((await env.ok('POST', '/templates', { name: 'Suomi', locale: 'fi-fi' }, 201)).body.locale).toBe('fi-FI');
    });

    it.each([
      [{}, '/name'],
      [{ name: '' }, '/name'],
      [{ name: '   ' }, '/name'],
      [{ name: 'x'.repeat(251) }, '/name'],
      [{ name: 7 }, '/name'],
      [{ name: 'ok', locale: 'not a locale' }, '/locale'],
      [{ name: 'ok', locale: 5 }, '/locale'],
      [{ name: 'ok', colour: 'red' }, '/colour'],
    ])('refuses %j (422 at %s)', async (body, pointer) => {
      expectProblem(await environment().call('POST', '/templates', body), 422, 'validation-failed', pointer);
    });

    it('accepts a name of exactly 250 characters', async () => {
      expect((await environment().ok('POST', '/templates', { name: 'é'.repeat(250) }, 201)).body.name).toHaveLength(250);
    });
  });

  describe('GET /templates', () => {
    it('lists the environment’s groups newest first, paged, with isDefault', async () => {
      const env = environment();
      const ids: string[] = [];
      for (const name of ['a', 'b', 'c']) ids.push((await env.ok('POST', '/templates', { name }, 201)).body.id);
      await env.ok('PUT', `/templates/${ids[1]}/default`, undefined, 200);
      const first = await env.ok('GET', '/templates?limit=2', undefined, 200);
      expect(first.body.items.map((group: { name: string; isDefault: boolean }) => [group.name, group.isDefault])).toEqual([
        ['c', false],
        ['b', true],
      ]);
      const second = await env.ok('GET', `/templates?limit=2&pageToken=${first.body.nextPageToken}`, undefined, 200);
      expect(second.body).toEqual({ items: [expect.objectContaining({ name: 'a' })], nextPageToken: null });
      expectProblem(await env.call('GET', '/templates?limit=0'), 422, 'validation-failed', '/query/limit');
      expectProblem(await env.call('GET', '/templates?sort=name'), 422, 'validation-failed', '/query/sort');
      expectProblem(await env.call('GET', '/templates?pageToken=nonsense'), 422, 'validation-failed', '/query/pageToken');
    });
    it('issue 20 #5: pages newest first while positions pass 100 and 1 000 (limit=3 shows the 3 newest, the next page the rest)', async () => {
      const env = environment();
      // Other environments' events push the log's position up to the next power of ten between two groups.
      const fillLogPast = async (position: number) => {
        const [{ last }] = await t.dataSource.query(`select coalesce(max(global_position), 0)::int as last from events`);
        const count = Math.max(position - last, 0);
        if (count === 0) return;
        await t.app.get(EventStore).append(
          Array.from({ length: count }, () => ({
            stream: { environmentId: randomUUID(), streamType: 'product', streamId: randomUUID() },
            expectedVersion: 'no_stream' as const,
            events: [{ eventId: randomUUID(), type: 'ProductCreated', schemaVersion: 1, data: { name: 'filler' }, occurredAt: new Date() }],
          })),
          { actor: 'test', requestId: null, correlationId: randomUUID(), causationId: null },
        );
      };
      const names: string[] = [];
      const positions: number[] = [];
      for (const name of ['one', 'two', 'three', 'four', 'five']) {
        names.unshift(name);
        await env.ok('POST', '/templates', { name }, 201);
        const [{ position }] = await t.dataSource.query(
          `select position::int as position from template_groups where environment_id = $1 order by position desc limit 1`,
          [env.id],
        );
        positions.push(position);
        if (name === 'two') await fillLogPast(Math.max(100, 10 ** String(position).length));
        if (name === 'three') await fillLogPast(Math.max(1000, 10 ** String(position).length));
      }
      // Text would sort each newer group, one digit longer, after the older ones.
      expect(String(positions[1]).length).toBeLessThan(String(positions[2]).length);
      expect(String(positions[2]).length).toBeLessThan(String(positions[3]).length);
      expect(positions[3]).toBeGreaterThan(1000);
      const first = await env.ok('GET', '/templates?limit=3', undefined, 200);
      expect(first.body.items.map((group: { name: string }) => group.name)).toEqual(names.slice(0, 3));
      const second = await env.ok('GET', `/templates?limit=3&pageToken=${first.body.nextPageToken}`, undefined, 200);
      expect(second.body).toEqual({ items: names.slice(3).map((name) => expect.objectContaining({ name })), nextPageToken: null });
    });
  });

  describe('PUT /templates/{id}', () => {
    it('renames and relocalises, honouring If-Match', async () => {
      const env = environment();
      const created = (await env.ok('POST', '/templates', { name: 'Old' }, 201)).body;
      const renamed = await env.ok('PUT', `/templates/${created.id}`, { name: 'New', locale: 'de' }, 200, { 'if-match': '"1"' });
      expect(renamed.body).toMatchObject({ id: created.id, name: 'New', locale: 'de', isDefault: false });
      expect(renamed.headers.get('etag')).toBe('"2"');
      expectProblem(await env.call('PUT', `/templates/${created.id}`, { name: 'Stale' }, { 'if-match': '"1"' }), 409, 'version-conflict');
      // The same values again record nothing.
      expect((await env.ok('PUT', `/templates/${created.id}`, { name: 'New', locale: 'de' }, 200)).headers.get('etag')).toBe('"2"');
      expectProblem(await env.call('PUT', `/templates/${created.id}`, { name: '' }), 422, 'validation-failed', '/name');
      expectProblem(await env.call('PUT', `/templates/${randomUUID()}`, { name: 'x' }), 404, 'not-found');
    });
  });

  describe('PUT /templates/{groupId}/templates/{templateId}', () => {
    it('saves content that parses and answers the group', async () => {
      const env = environment();
      const group = (await env.ok('POST', '/templates', { name: 'G' }, 201)).body;
      const email = group.templates.find((template: { type: string }) => template.type === 'invoice_email_html');
      const response = await env.ok('PUT', `/templates/${group.id}/templates/${email.id}`, { content: '<p>Hei {{ customer.name }}</p>' }, 200, {
        'if-match': '"1"',
      });
      expect(response.body.templates.find((template: { id: string }) => template.id === email.id)).toEqual({
        id: email.id,
        type: 'invoice_email_html',
        content: '<p>Hei {{ customer.name }}</p>',
      });
      expect(response.headers.get('etag')).toBe('"2"');
      expect((await env.ok('GET', `/templates/${group.id}`, undefined, 200)).body.templates).toEqual(response.body.templates);
      expectProblem(await env.call('PUT', `/templates/${group.id}/templates/${email.id}`, { content: 'x' }, { 'if-match': '"1"' }), 409, 'version-conflict');
    });

    it('refuses a syntax error with its line and column (422 at /content)', async () => {
      const env = environment();
      const group = (await env.ok('POST', '/templates', { name: 'G' }, 201)).body;
      const pdf = group.templates[0];
      const response = await env.call('PUT', `/templates/${group.id}/templates/${pdf.id}`, { content: '<h1>ok</h1>\n<p>\n  {% if invoice.handle %}\n</p>' });
      expectProblem(response, 422, 'template-syntax-error', '/content');
      expect(response.body.errors[0]).toEqual({ pointer: '/content', detail: expect.stringMatching(/^line 3, column 3: .*not closed/), line: 3, column: 3 });
      expect(response.body.detail).toContain('line 3, column 3');
      const filter = await env.call('PUT', `/templates/${group.id}/templates/${pdf.id}`, { content: '{{ invoice.date | nosuch }}' });
      expectProblem(filter, 422, 'template-syntax-error', '/content');
      expect(filter.body.errors[0]).toMatchObject({ line: 1, column: 1, detail: expect.stringContaining('undefined filter: nosuch') });
      // Nothing was saved.
      expect((await env.ok('GET', `/templates/${group.id}`, undefined, 200)).body.templates[0].content).toBe(pdf.content);
    });

    it('refuses includes, renders and layouts when saving: no file system, no other template', async () => {
      const env = environment();
      const group = (await env.ok('POST', '/templates', { name: 'G' }, 201)).body;
      for (const content of ["{% include '/etc/passwd' %}", "{% render 'invoice_email_html' %}", "{% layout 'x' %}"]) {
        const response = await env.call('PUT', `/templates/${group.id}/templates/${group.templates[0].id}`, { content });
        expectProblem(response, 422, 'template-syntax-error', '/content');
        expect(response.body.errors[0].detail).toContain('not available');
      }
    });

    it.each([
      [{}, '/content', 'validation-failed'],
      [{ content: 5 }, '/content', 'validation-failed'],
      [{ content: 'x'.repeat(100_001) }, '/content', 'validation-failed'],
      [{ content: 'x', extra: 1 }, '/extra', 'validation-failed'],
    ])('refuses the body %#', async (body, pointer, code) => {
      const env = environment();
      const group = (await env.ok('POST', '/templates', { name: 'G' }, 201)).body;
      expectProblem(await env.call('PUT', `/templates/${group.id}/templates/${group.templates[0].id}`, body), 422, code, pointer);
    });

    it('404 for a template of another group, or no such group', async () => {
      const env = environment();
      const a = (await env.ok('POST', '/templates', { name: 'A' }, 201)).body;
      const b = (await env.ok('POST', '/templates', { name: 'B' }, 201)).body;
      expectProblem(await env.call('PUT', `/templates/${a.id}/templates/${b.templates[0].id}`, { content: 'x' }), 404, 'not-found');
      expectProblem(await env.call('PUT', `/templates/${randomUUID()}/templates/${a.templates[0].id}`, { content: 'x' }), 404, 'not-found');
      expectProblem(await env.call('PUT', `/templates/${a.id}/templates/not-a-uuid`, { content: 'x' }), 404, 'not-found');
    });
  });

  describe('PUT /templates/{id}/default', () => {
    it('makes a group the default (the other no longer is); again changes nothing', async () => {
      const env = environment();
      const a = (await env.ok('POST', '/templates', { name: 'A' }, 201)).body;
      const b = (await env.ok('POST', '/templates', { name: 'B' }, 201)).body;
      expect((await env.ok('PUT', `/templates/${a.id}/default`, undefined, 200)).body).toMatchObject({ id: a.id, isDefault: true });
      expect((await env.ok('PUT', `/templates/${b.id}/default`, {}, 200)).body).toMatchObject({ id: b.id, isDefault: true });
      expect((await env.ok('GET', `/templates/${a.id}`, undefined, 200)).body.isDefault).toBe(false);
      expect((await env.ok('PUT', `/templates/${b.id}/default`, undefined, 200)).body.isDefault).toBe(true);
      const [row] = await t.dataSource.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'DefaultTemplateGroupSet'`, [
        env.id,
      ]);
      expect(row.n).toBe(2);
      expectProblem(await env.call('PUT', `/templates/${a.id}/default`, { x: 1 }), 422, 'validation-failed');
      expectProblem(await env.call('PUT', `/templates/${randomUUID()}/default`, undefined), 404, 'not-found');
    });
  });

  describe('environments', () => {
    it('another environment’s group is not found on any route; a token without the environment is a 403', async () => {
      const a = environment();
      const group = (await a.ok('POST', '/templates', { name: 'A' }, 201)).body;
      const b = environment();
      expectProblem(await b.call('GET', `/templates/${group.id}`), 404, 'not-found');
      expectProblem(await b.call('PUT', `/templates/${group.id}`, { name: 'x' }), 404, 'not-found');
      expectProblem(await b.call('PUT', `/templates/${group.id}/templates/${group.templates[0].id}`, { content: 'x' }), 404, 'not-found');
      expectProblem(await b.call('PUT', `/templates/${group.id}/default`, undefined), 404, 'not-found');
      expect((await b.ok('GET', '/templates', undefined, 200)).body).toEqual({ items: [], nextPageToken: null });
      const foreign = { environment: a.id, token: t.token([b.id]) };
      for (const [method, path, body] of [
        ['GET', '/templates', undefined],
        ['POST', '/templates', { name: 'x' }],
        ['GET', `/templates/${group.id}`, undefined],
        ['PUT', `/templates/${group.id}`, { name: 'x' }],
        ['PUT', `/templates/${group.id}/templates/${group.templates[0].id}`, { content: 'x' }],
        ['PUT', `/templates/${group.id}/default`, undefined],
      ] as const) {
        expectProblem(await t.request(method, path, { ...foreign, body }), 403, 'forbidden-environment');
      }
    });
  });

  describe('the PDF in the environment without any group', () => {
    it('renders a draft with the built-in templates', async () => {
      const env = environment();
      const invoice = (
        await env.ok(
          'POST',
          '/invoices',
          { customer: { id: randomUUID(), handle: 'C-9', name: 'Åsa Øberg' }, currency: 'EUR', items: [{ title: 'Plan', quantity: 2, unitAmount: 1250 }] },
          201,
        )
      ).body;
      const response = await fetch(`${t.baseUrl}/invoices/${invoice.id}/pdf`, {
        headers: { authorization: `Bearer ${t.token([env.id])}`, 'x-environment': env.id },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      const text = await pdfText(Buffer.from(await response.arrayBuffer()));
      expect(text).toContain('Invoice draft');
      expect(text).toContain('Åsa Øberg');
      expect(text).toContain('€25.00');
    });
  });
});
