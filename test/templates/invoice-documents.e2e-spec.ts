import { createHash, randomUUID } from 'node:crypto';
import { eventually, expectProblem, startTestApp, TestApp, TestResponse } from '@billing/testing';
import { createSelfSignedCertificate, Receiver, TestCertificate } from '../webhooks/webhook-test-kit';
import { pdfText } from './pdf-text';

/**
 * Invoice documents over HTTP: drafts rendered live with the named or the
 * default group, booked invoices recorded once (by the reactor or the first
 * download) and answered byte for byte ever after, hostile templates stopped
 * with a problem while the service keeps answering, environments.
 */
describe('Invoice documents: GET /invoices/{id}/pdf and /html', () => {
  let t: TestApp;
  let certificate: TestCertificate;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CA_FILE: certificate.certFile, WEBHOOK_POLL_INTERVAL_MS: '100' } });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await t?.close();
    certificate.remove();
  });

  const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  const until = <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => eventually(read, done, { what });

  function environment() {
    const id = randomUUID();
    const token = t.token([id]);
    const options = { environment: id, token };
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.request(method, path, { ...options, body, headers });
    const ok = async (method: string, path: string, body: unknown, expected: number): Promise<TestResponse> => {
      const response = await call(method, path, body);
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    /** A binary download (the test app's request reads text). */
    const download = async (path: string, asEnvironment = id, withToken = token) => {
      const response = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${withToken}`, 'x-environment': asEnvironment } });
      const bytes = Buffer.from(await response.arrayBuffer());
      let body: any = undefined;
      if ((response.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(bytes.toString('utf8'));
      return { status: response.status, headers: response.headers, bytes, body, text: bytes.toString('utf8') };
    };
    return {
      id,
      call,
      ok,
      download,
      async draft(overrides: Record<string, unknown> = {}): Promise<string> {
        const body = {
          customer: {
            id: randomUUID(),
            handle: 'CUST-42',
            name: 'Jääkiekko Łódź Søren Oy',
            billingAddress: { street1: 'Mannerheimintie 12 B', postalCode: '00100', city: 'Helsinki', country: 'FI' },
          },
          currency: 'EUR',
          date: '2026-03-05',
          dueDate: '2026-03-19',
          items: [
            { title: 'Pro plan (annual)', quantity: 3, unitAmount: 123456 },
            { title: 'Extra seats', quantity: 2.5, unitAmount: 1999 },
          ],
          ...overrides,
        };
        return (await ok('POST', '/invoices', body, 201)).body.id;
      },
      async book(invoiceId: string): Promise<any> {
        return (await ok('PUT', `/invoices/${invoiceId}/book`, {}, 200)).body;
      },
      async group(name: string, locale?: string): Promise<any> {
        return (await ok('POST', '/templates', locale ? { name, locale } : { name }, 201)).body;
      },
      async setContent(group: any, type: string, content: string): Promise<void> {
        const template = group.templates.find((candidate: { type: string }) => candidate.type === type);
        await ok('PUT', `/templates/${group.id}/templates/${template.id}`, { content }, 200);
      },
      async rendered(invoiceId: string): Promise<any[]> {
        return (
          await t.dataSource.query(
            `select data from events where environment_id = $1 and stream_type = 'invoice-document' and stream_id = $2 order by stream_version`,
            [id, invoiceId],
          )
        ).map((row: { data: unknown }) => row.data);
      },
    };
  }

  it('a booked invoice in en: every field extractable, recorded by the reactor, sha256 equal to the event’s', async () => {
    const env = environment();
    const invoiceId = await env.draft();
    const booked = await env.book(invoiceId);
    const [record] = await until(
      () => env.rendered(invoiceId),
      (events) => events.length === 1,
      'the document recorded at booking',
    );
    // Recorded by the reactor, caused by the InvoiceBooked event (nothing downloaded it yet).
    const [cause] = await t.dataSource.query(
      `select d.metadata->>'actor' as actor from events d join events b on b.event_id::text = d.metadata->>'causationId'
        where d.environment_id = $1 and d.stream_type = 'invoice-document' and b.event_type = 'InvoiceBooked'`,
      [env.id],
    );
    expect(cause).toEqual({ actor: 'system:templates' });
    const pdf = await env.download(`/invoices/${invoiceId}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(sha256(pdf.bytes)).toBe(record.sha256);
    expect(pdf.headers.get('etag')).toBe(`"${record.sha256}"`);
    expect(pdf.headers.get('content-disposition')).toBe(`inline; filename="${booked.handle}.pdf"`);
    expect(record).toMatchObject({
      invoiceId,
      invoiceType: 'invoice',
      handle: booked.handle,
      templateType: 'invoice_pdf',
      templateGroupId: null,
      fallback: null,
      byteLength: pdf.bytes.length,
      locale: 'en',
    });
    const text = plain(await pdfText(pdf.bytes));
    for (const expected of [
      `Invoice ${booked.handle}`,
      'Jääkiekko Łódź Søren Oy',
      'CUST-42',
      'Mannerheimintie 12 B',
      '00100 Helsinki',
      'Pro plan (annual)',
      'Extra seats',
      '3',
      '2.5',
      '€1,234.56',
      '€3,703.68',
      '€19.99',
      '€49.98',
      '€3,753.66',
    ]) {
      expect(text).toContain(expected);
    }
    // Each line reads across: title, quantity, unit price, VAT rate, amount.
    expect(text).toMatch(/Pro plan \(annual\)\s+3\s+€1,234\.56\s+0%\s+€3,703\.68/);
    expect(text).toMatch(/Extra seats\s+2\.5\s+€19\.99\s+0%\s+€49\.98/);
    expect(text).toMatch(/Total\s+€3,753\.66/);
    const html = await env.download(`/invoices/${invoiceId}/html`);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(sha256(html.bytes)).toBe(record.htmlSha256);
    expect(html.headers.get('etag')).toBe(`"${record.htmlSha256}"`);
    expect(html.text).toContain(`<h1>Invoice ${booked.handle}</h1>`);
  });

  it('a booked invoice in fi with the default group; byte-identical after the templates change; another group is a 409', async () => {
    const env = environment();
    const group = await env.group('Suomi', 'fi');
    await env.ok('PUT', `/templates/${group.id}/default`, undefined, 200);
    const invoiceId = await env.draft();
    const booked = await env.book(invoiceId);
    const first = await env.download(`/invoices/${invoiceId}/pdf`);
    expect(first.status).toBe(200);
    const text = plain(await pdfText(first.bytes));
    for (const expected of [
      `Lasku ${booked.handle}`,
      'Eräpäivä',
      'Jääkiekko Łódź Søren Oy',
      'Mannerheimintie 12 B',
      'Pro plan (annual)',
      'Extra seats',
      '2,5',
      '1 234,56 €',
      '3 703,68 €',
      '3 753,66 €',
      'Yhteensä',
    ]) {
      expect(text).toContain(expected);
    }
    // fi separates with no-break spaces, which pdftotext -layout may drop before a '%'.
    expect(text).toMatch(/Pro plan \(annual\)\s+3\s+1 234,56 €\s+0\s?%\s+3 703,68 €/);
    expect(text).toMatch(/Yhteensä\s+3 753,66 €/);
    const [record] = await until(
      () => env.rendered(invoiceId),
      (events) => events.length === 1,
      'the record',
    );
    expect(record).toMatchObject({ templateGroupId: group.id, templateGroupVersion: 1, locale: 'fi', sha256: sha256(first.bytes) });

    // The templates change, the default changes: the booked document does not.
    await env.setContent(group, 'invoice_pdf', '<h1>CHANGED {{ invoice.handle }}</h1>');
    await env.ok('PUT', `/templates/${group.id}`, { name: 'Deutsch', locale: 'de' }, 200);
    const other = await env.group('Other');
    await env.ok('PUT', `/templates/${other.id}/default`, undefined, 200);
    const again = await env.download(`/invoices/${invoiceId}/pdf`);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect((await env.download(`/invoices/${invoiceId}/pdf?templateGroupId=${group.id}`)).bytes.equals(first.bytes)).toBe(true);
    expectProblem(await env.download(`/invoices/${invoiceId}/pdf?templateGroupId=${other.id}`), 409, 'invoice-document-recorded');
    expect(await env.rendered(invoiceId)).toHaveLength(1);
    // A draft renders live: the changed template now.
    const draftId = await env.draft();
    expect(await pdfText((await env.download(`/invoices/${draftId}/pdf?templateGroupId=${group.id}`)).bytes)).toContain('CHANGED');
  });

  it('a download before the reactor records the document the same way; the reactor then finds it done', async () => {
    const env = environment();
    const invoiceId = await env.draft();
    await env.book(invoiceId);
    const downloads = await Promise.all([
      env.download(`/invoices/${invoiceId}/pdf`),
      env.download(`/invoices/${invoiceId}/pdf`),
      env.download(`/invoices/${invoiceId}/html`),
    ]);
    expect(downloads.map((download) => download.status)).toEqual([200, 200, 200]);
    expect(downloads[0].bytes.equals(downloads[1].bytes)).toBe(true);
    const [record] = await until(
      () => env.rendered(invoiceId),
      (events) => events.length === 1,
      'the record',
    );
    expect(sha256(downloads[0].bytes)).toBe(record.sha256);
    expect(sha256(downloads[2].bytes)).toBe(record.htmlSha256);
    const [rows] = await t.dataSource.query(`select count(*)::int as n from invoice_documents where environment_id = $1 and invoice_id = $2`, [
      env.id,
      invoiceId,
    ]);
    expect(rows.n).toBe(1);
  });

  it('a draft renders at its tax codes’ current rates, as GET /invoices/{id} shows it', async () => {
    const env = environment();
    await env.ok('POST', '/tax-codes', { code: 'VAT', rate: 0.24, taxable: true }, 201);
    const invoiceId = await env.draft({ items: [{ title: 'Plan', quantity: 1, unitAmount: 10000, taxCode: 'VAT' }] });
    expect(plain(await pdfText((await env.download(`/invoices/${invoiceId}/pdf`)).bytes))).toContain('€124.00');
    await env.ok('PUT', '/tax-codes/VAT', { rate: 0.255, taxable: true }, 200);
    expect((await env.ok('GET', `/invoices/${invoiceId}`, undefined, 200)).body.totalInclVat).toBe(12550);
    const text = plain(await pdfText((await env.download(`/invoices/${invoiceId}/pdf`)).bytes));
    expect(text).toContain('25.5%');
    expect(text).toContain('€125.50');
  });

  it('a credit note renders with credit_note_pdf', async () => {
    const env = environment();
    const invoiceId = await env.draft();
    await env.book(invoiceId);
    const credit = (await env.ok('POST', `/invoices/${invoiceId}/duplicate`, { reverse: true }, 200)).body;
    const bookedCredit = await env.book(credit.id);
    const text = plain(await pdfText((await env.download(`/invoices/${credit.id}/pdf`)).bytes));
    expect(text).toContain(`Credit note ${bookedCredit.handle}`);
    expect(text).toContain('-€3,753.66');
    const [record] = await until(
      () => env.rendered(credit.id),
      (events) => events.length === 1,
      'the record',
    );
    expect(record).toMatchObject({ invoiceType: 'credit_note', templateType: 'credit_note_pdf' });
  });

  it('a template that fails at booking falls back to the built-in one, recorded in the event', async () => {
    const env = environment();
    const group = await env.group('Broken', 'de');
    await env.setContent(group, 'invoice_pdf', '<h1>{{ invoice.handle | money }}</h1>');
    await env.ok('PUT', `/templates/${group.id}/default`, undefined, 200);
    const invoiceId = await env.draft();
    // Live, the draft's render fails with the problem…
    const live = await env.download(`/invoices/${invoiceId}/pdf`);
    expectProblem(live, 422, 'template-render-failed');
    expect(live.body.detail).toMatch(/line 1, column 5: a filter could not format its value: money/);
    // …booking never stalls on it.
    const booked = await env.book(invoiceId);
    const [record] = await until(
      () => env.rendered(invoiceId),
      (events) => events.length === 1,
      'the record',
    );
    expect(record).toMatchObject({
      templateGroupId: null,
      templateGroupVersion: null,
      locale: 'de',
      fallback: { templateGroupId: group.id, reason: expect.stringContaining('money') },
    });
    expect(await pdfText((await env.download(`/invoices/${invoiceId}/pdf`)).bytes)).toContain(`Rechnung ${booked.handle}`);
  });

  it('notifies template_group.created, template_group.updated (name and content) and invoice.document_rendered', async () => {
    const env = environment();
    const receiver = await new Receiver(certificate).start();
    receivers.push(receiver);
    await env.ok('PUT', '/webhooks/subscribe', { url: receiver.url() }, 200);
    const group = await env.group('Notified');
    await env.ok('PUT', `/templates/${group.id}`, { name: 'Renamed', locale: 'fi' }, 200);
    await env.setContent(group, 'invoice_email_html', '<p>{{ invoice.handle }}</p>');
    const invoiceId = await env.draft();
    await env.book(invoiceId);
    const wanted = (all: any[]) =>
      ['template_group.created', 'invoice.document_rendered'].every((type) => all.some((b) => b.type === type)) &&
      all.filter((b) => b.type === 'template_group.updated').length === 2;
    const all = await eventually(async (): Promise<any[]> => receiver.requests.map((request) => JSON.parse(request.rawBody)), wanted, {
      what: 'the template and document notifications',
    });
    const ofType = (type: string) => all.filter((b) => b.type === type).map((b) => b.data);
    // Notifications carry the group as GET returns it, less isDefault (an environment's choice, not the group's).
    const { isDefault: _isDefault, ...created } = group;
    expect(ofType('template_group.created')).toEqual([created]);
    // Deliveries are sent concurrently and may arrive in any order (webhooks promise no order): compared as a set.
    const updates = ofType('template_group.updated').map((data) => [data.name, data.locale, data.templates[2].content]);
    expect(updates).toHaveLength(2);
    expect(updates).toEqual(
      expect.arrayContaining([
        ['Renamed', 'fi', group.templates[2].content],
        ['Renamed', 'fi', '<p>{{ invoice.handle }}</p>'],
      ]),
    );
    const [record] = await env.rendered(invoiceId);
    expect(ofType('invoice.document_rendered')).toEqual([record]);
  });

  describe('hostile templates are refused with a problem, and the service answers the next request normally', () => {
    it.each([
      ['an endless range', '{% for i in (1..100000000) %}x{% endfor %}'],
      ['nested loops', '{% for i in (1..100000) %}{% for j in (1..100000) %}x{% endfor %}{% endfor %}'],
      ['doubling a string', "{% assign s = 'xxxxxxxxxx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}"],
      ['megabytes of output', "{% assign s = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' %}{% for i in (1..60000) %}{{ s | raw }}{% endfor %}"],
      ['issue 20 #17: 20 000 iterations of ten characters (200 000 characters for a three-line invoice)', '{% for i in (1..20000) %}xxxxxxxxxx{% endfor %}'],
    ])('%s: refused at save (422 at /content, from a dry render of a sample invoice)', async (_name, content) => {
      const env = environment();
      const group = await env.group('Hostile');
      const template = group.templates.find((candidate: { type: string }) => candidate.type === 'invoice_pdf');
      const response = await env.call('PUT', `/templates/${group.id}/templates/${template.id}`, { content });
      expectProblem(response, 422, 'template-limit-exceeded', '/content');
      expect(response.body.errors[0].detail).toMatch(
        /^on a sample invoice: The (template|render) was stopped|^on a sample invoice: The template rendered \d+ characters/,
      );
      expect((await env.ok('GET', `/templates/${group.id}`, undefined, 200)).body.templates).toEqual(group.templates);
      const invoiceId = await env.draft();
      expect((await env.download(`/invoices/${invoiceId}/pdf?templateGroupId=${group.id}`)).status).toBe(200);
    });

    it('prototype and constructor access renders nothing', async () => {
      const env = environment();
      const group = await env.group('Proto');
      await env.setContent(
        group,
        'invoice_pdf',
        '<p>[{{ constructor }}][{{ invoice.constructor }}][{{ invoice.__proto__ }}][{{ lines.constructor.name }}][{{ customer["__proto__"] }}]</p>',
      );
      const invoiceId = await env.draft();
      const html = await env.download(`/invoices/${invoiceId}/html?templateGroupId=${group.id}`);
      expect(html.status).toBe(200);
      expect(html.text.trim()).toBe('<p>[][][][][]</p>');
    });

    it('customer data cannot inject markup into the document', async () => {
      const env = environment();
      const invoiceId = await env.draft({ customer: { id: randomUUID(), handle: null, name: '<script>alert(1)</script>' } });
      const html = await env.download(`/invoices/${invoiceId}/html`);
      expect(html.text).not.toContain('<script>');
      expect(html.text).toContain('&lt;script&gt;');
    });
  });

  describe('errors and environments', () => {
    it('404 for no such invoice or group, 422 for a malformed group id or another parameter', async () => {
      const env = environment();
      const invoiceId = await env.draft();
      expectProblem(await env.download(`/invoices/${randomUUID()}/pdf`), 404, 'not-found');
      expectProblem(await env.download(`/invoices/${randomUUID()}/html`), 404, 'not-found');
      expectProblem(await env.download(`/invoices/not-a-uuid/pdf`), 404, 'not-found');
      expectProblem(await env.download(`/invoices/${invoiceId}/pdf?templateGroupId=${randomUUID()}`), 404, 'not-found');
      expectProblem(await env.download(`/invoices/${invoiceId}/pdf?templateGroupId=nope`), 422, 'validation-failed', '/query/templateGroupId');
      expectProblem(await env.download(`/invoices/${invoiceId}/html?format=a4`), 422, 'validation-failed', '/query/format');
    });

    it('another environment’s invoice and group are not found; a token without the environment is a 403', async () => {
      const a = environment();
      const group = await a.group('A');
      const draftId = await a.draft();
      const bookedId = await a.draft();
      await a.book(bookedId);
      const b = environment();
      const ownDraft = await b.draft();
      for (const id of [draftId, bookedId]) {
        expectProblem(await b.download(`/invoices/${id}/pdf`), 404, 'not-found');
        expectProblem(await b.download(`/invoices/${id}/html`), 404, 'not-found');
      }
      expectProblem(await b.download(`/invoices/${ownDraft}/pdf?templateGroupId=${group.id}`), 404, 'not-found');
      expectProblem(await a.download(`/invoices/${draftId}/pdf`, a.id, t.token([b.id])), 403, 'forbidden-environment');
      expectProblem(await a.download(`/invoices/${bookedId}/html`, a.id, t.token([b.id])), 403, 'forbidden-environment');
    });
  });
});
