import { randomUUID } from 'node:crypto';
import { eventually, expectProblem, startTestApp, TestApp } from '@billing/testing';

/**
 * The hosted invoice page over plain HTTP: the link on the invoice, the page and its PDF, one 404 page for every
 * token that opens nothing (unknown, tampered, rotated, another environment's), rotation, paying through the form
 * (once per nonce), the states without a pay button, and the per-address rate limit. The browser's view of the
 * same page: hosted-page.browser.e2e-spec.ts.
 */
describe('Hosted invoice page', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = (method: string, path: string, body?: unknown) => t.request(method, path, { ...options, body });
    return {
      id,
      call,
      async enableSandbox() {
        expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_hosted-page-test' } })).status).toBe(
          200,
        );
      },
      async draft(amount = 12_345): Promise<any> {
        const created = await call('POST', '/invoices', {
          customer: { id: randomUUID(), handle: 'C-7', name: 'Hosted Customer Oy' },
          currency: 'EUR',
          items: [{ title: 'Consulting', quantity: 1, unitAmount: amount }],
        });
        expect(created.status).toBe(201);
        return created.body;
      },
      async booked(amount?: number): Promise<any> {
        const draft = await this.draft(amount);
        const booked = await call('PUT', `/invoices/${draft.id}/book`, {});
        expect(booked.status).toBe(200);
        return booked.body;
      },
    };
  }

  /** The page's path: hostedInvoiceUrl is made with PUBLIC_BASE_URL, which in tests is not where the app listens. */
  const pathOf = (url: string) => new URL(url).pathname;
  const open = (path: string, init?: RequestInit) => fetch(`${t.baseUrl}${path}`, { redirect: 'manual', ...init });
  const nonceOf = (html: string) => /name="nonce" value="([^"]+)"/.exec(html)?.[1];
  const payForm = (path: string, fields: Record<string, string>) =>
    open(`${path}/pay`, { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

  it('gives a booked invoice a link (a draft none) and serves its page, with a strict CSP, and its recorded PDF', async () => {
    const env = environment();
    const draft = await env.draft();
    expect(draft.hostedInvoiceUrl).toBeNull();
    const invoice = await env.booked();
    expect(invoice.hostedInvoiceUrl).toMatch(/^http:\/\/localhost:\d+\/i\/[A-Za-z0-9_-]{86}$/);
    // The token reveals neither id.
    for (const id of [env.id, invoice.id]) {
      expect(invoice.hostedInvoiceUrl).not.toContain(id);
      expect(invoice.hostedInvoiceUrl).not.toContain(Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url').slice(0, 12));
    }
    expect((await env.call('GET', `/invoices/${invoice.id}`)).body.hostedInvoiceUrl).toBe(invoice.hostedInvoiceUrl);
    const listed = (await env.call('GET', '/invoices')).body.items;
    expect(listed[0]).not.toHaveProperty('hostedInvoiceUrl');

    const page = await open(pathOf(invoice.hostedInvoiceUrl));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self';/);
    const html = await page.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain(invoice.handle);
    expect(html).toContain('Hosted Customer Oy');
    expect(html).toContain('€123.45');
    expect(html).not.toMatch(/<script|src=|https?:\/\//);

    const pdf = await open(`${pathOf(invoice.hostedInvoiceUrl)}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    const recorded = await fetch(`${t.baseUrl}/invoices/${invoice.id}/pdf`, {
      headers: { authorization: `Bearer ${t.token([env.id])}`, 'x-environment': env.id },
    });
    expect(bytes.subarray(0, 4).toString()).toBe('%PDF');
    expect(bytes.equals(Buffer.from(await recorded.arrayBuffer()))).toBe(true);
  });

  it("speaks the document's language: lang, amount and due date in the locale of the group it was recorded with", async () => {
    const env = environment();
    const group = await env.call('POST', '/templates', { name: 'Suomi', locale: 'fi-FI' });
    expect(group.status).toBe(201);
    expect((await env.call('PUT', `/templates/${group.body.id}/default`, {})).status).toBe(200);
    const created = await env.call('POST', '/invoices', {
      customer: { id: randomUUID(), handle: null, name: 'Asiakas Oy' },
      currency: 'EUR',
      date: '2026-01-15',
      dueDate: '2026-02-14',
      items: [{ title: 'Palvelu', quantity: 1, unitAmount: 123_456 }],
    });
    const invoice = (await env.call('PUT', `/invoices/${created.body.id}/book`, {})).body;
    const html = await (await open(pathOf(invoice.hostedInvoiceUrl))).text();
    expect(html).toContain('<html lang="fi-FI">');
    expect(html).toMatch(/id="amount-due">1\s234,56\s€</);
    expect(html).toMatch(/id="due-date">14\.2\.2026</);
    expect(html).toContain('Lasku');
  });

  it('answers the same 404 page for every token that opens nothing', async () => {
    const env = environment();
    const invoice = await env.booked();
    const path = pathOf(invoice.hostedInvoiceUrl);
    const token = path.slice('/i/'.length);
    const tampered = `${token.slice(0, 40)}${token[40] === 'A' ? 'B' : 'A'}${token.slice(41)}`;
    const wrong = ['/i/nothing', `/i/${'A'.repeat(86)}`, `/i/${tampered}`, `/i/${token.slice(0, 85)}`, `/i/${token}x`, `/i/${tampered}/pdf`];
    const answers = await Promise.all(wrong.map(async (p) => ({ status: (await open(p)).status, text: await (await open(p)).text() })));
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.text).toBe(answers[0].text);
    }
    expect(answers[0].text).toContain('This invoice link is not valid');
    expect((await payForm(`/i/${tampered}`, { nonce: randomUUID(), provider: 'sandbox', token: 'tok_success' })).status).toBe(404);
  });

  it('rotates the link: the old one opens the 404 page, the new one the invoice; a draft has none to rotate; another environment sees no invoice', async () => {
    const env = environment();
    const other = environment();
    const invoice = await env.booked();
    expectProblem(await other.call('PUT', `/invoices/${invoice.id}/hosted-link/rotate`, {}), 404, 'not-found');
    const rotated = await env.call('PUT', `/invoices/${invoice.id}/hosted-link/rotate`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(rotated.body.hostedInvoiceUrl).not.toBe(invoice.hostedInvoiceUrl);
    expect((await open(pathOf(invoice.hostedInvoiceUrl))).status).toBe(404);
    expect((await open(pathOf(rotated.body.hostedInvoiceUrl))).status).toBe(200);
    expect((await env.call('GET', `/invoices/${invoice.id}`)).body.hostedInvoiceUrl).toBe(rotated.body.hostedInvoiceUrl);
    const draft = await env.draft();
    expectProblem(await env.call('PUT', `/invoices/${draft.id}/hosted-link/rotate`, {}), 409, 'invoice-not-booked');
    expectProblem(await env.call('PUT', `/invoices/${randomUUID()}/hosted-link/rotate`, {}), 404, 'not-found');
    expectProblem(await env.call('PUT', `/invoices/${invoice.id}/hosted-link/rotate`, { extra: 1 }), 422, 'validation-failed');
  });

  it('pays through the form once per nonce, then shows paid with no pay button; a decline shows its message', async () => {
    const env = environment();
    await env.enableSandbox();
    const declined = await env.booked(5_000);
    const declinedPath = pathOf(declined.hostedInvoiceUrl);
    const declinedNonce = nonceOf(await (await open(declinedPath)).text())!;
    const afterDecline = await payForm(declinedPath, { nonce: declinedNonce, provider: 'sandbox', token: 'tok_decline' });
    expect(afterDecline.status).toBe(303);
    const declinedPage = await (await open(afterDecline.headers.get('location')!)).text();
    expect(declinedPage).toContain('Your payment was declined');
    expect(declinedPage).toContain('id="pay"');

    const invoice = await env.booked(7_500);
    const path = pathOf(invoice.hostedInvoiceUrl);
    const nonce = nonceOf(await (await open(path)).text())!;
    const [first, second] = await Promise.all([1, 2].map(() => payForm(path, { nonce, provider: 'sandbox', token: 'tok_success' })));
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(first.headers.get('location')).toBe(second.headers.get('location'));
    const afterPayment = await (await open(first.headers.get('location')!)).text();
    expect(afterPayment).toContain('Thank you: your payment succeeded.');
    expect(afterPayment).not.toContain('id="pay"');
    // The settlement is recorded by payments' reactor: the page says paid once it is.
    const paidPage = await eventually(
      async () => (await open(path)).text(),
      (html) => html.includes('id="status">Paid<'),
      { what: 'the page showing paid' },
    );
    expect(paidPage).not.toContain('id="pay"');
    const payments = await env.call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoice.id}`)}`);
    expect(payments.body.items).toHaveLength(1);
    expect(payments.body.items[0]).toMatchObject({ status: 'succeeded', amount: 7_500 });
    // The payment settles the invoice through a reactor, in its own time.
    await eventually(
      () => env.call('GET', `/invoices/${invoice.id}`),
      (settled) => settled.body.totalDue === 0,
      { what: 'the payment settled on the invoice' },
    );
    // An incomplete form is said on the page; nothing is paid.
    const incomplete = await payForm(pathOf(declined.hostedInvoiceUrl), { nonce: 'x', provider: 'sandbox', token: '' });
    expect(incomplete.status).toBe(400);
    expect(await incomplete.text()).toContain('The payment form was incomplete');
  });

  it('refuses a form naming a provider that takes no money from the customer (manual), an unknown or a disabled one: nothing recorded', async () => {
    const env = environment();
    await env.enableSandbox();
    expect((await env.call('POST', '/paymentproviders/enable', { name: 'manual', credentials: null })).status).toBe(200);
    const invoice = await env.booked(6_000);
    const path = pathOf(invoice.hostedInvoiceUrl);
    const nonce = nonceOf(await (await open(path)).text())!;
    const refusals = async (provider: string, said: string) => {
      const refused = await payForm(path, { nonce, provider, token: 'tok_success' });
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain(said);
    };
    await refusals('manual', 'manual payments are recorded by staff, not made by customers');
    await refusals('adyen', 'must be a known payment provider');
    await refusals('stripe', 'stripe is not enabled in this environment');
    expect((await env.call('PUT', '/paymentproviders/sandbox/disable', {})).status).toBe(200);
    await refusals('sandbox', 'sandbox is not enabled in this environment');
    const payments = await env.call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoice.id}`)}`);
    expect(payments.body.items).toEqual([]);
    expect((await env.call('GET', `/invoices/${invoice.id}`)).body).toMatchObject({ totalDue: 6_000, settlements: [] });
  });

  it('shows a void invoice and a credit note without a pay button; no provider: no pay button either', async () => {
    const env = environment();
    const unpayable = await env.booked();
    const unpayablePage = await (await open(pathOf(unpayable.hostedInvoiceUrl))).text();
    expect(unpayablePage).toContain('cannot be paid online');
    expect(unpayablePage).not.toContain('id="pay"');
    await env.enableSandbox();
    const voided = await env.call('PUT', `/invoices/${(await env.booked()).id}/void`, {});
    const voidPage = await (await open(pathOf(voided.body.hostedInvoiceUrl))).text();
    expect(voidPage).toContain('id="status">Void<');
    expect(voidPage).not.toContain('id="pay"');
    const credited = await env.call('POST', `/invoices/${unpayable.id}/duplicate`, { reverse: true });
    const creditNote = await env.call('PUT', `/invoices/${credited.body.id}/book`, {});
    const creditPage = await (await open(pathOf(creditNote.body.hostedInvoiceUrl))).text();
    expect(creditPage).toContain('id="status">Credit note<');
    expect(creditPage).not.toContain('id="pay"');
  });

  it('refuses a form post anywhere but the hosted page, and any other body on it', async () => {
    const env = environment();
    const invoice = await env.booked();
    const form = await fetch(`${t.baseUrl}/invoices`, {
      method: 'POST',
      body: new URLSearchParams({ currency: 'EUR' }),
      headers: { authorization: `Bearer ${t.token([env.id])}`, 'x-environment': env.id, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const json = await open(`${pathOf(invoice.hostedInvoiceUrl)}/pay`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(401);
  });
});

describe('Hosted invoice page rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { HOSTED_PAGE_RATE_LIMIT: '5' } });
  });
  afterAll(() => t.close());

  it('answers the 429 page with Retry-After once an address made its requests of the minute, valid token or not', async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) {
      last = await fetch(`${t.baseUrl}/i/${'A'.repeat(86)}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await last!.text()).toContain('Too many requests');
  });
});
