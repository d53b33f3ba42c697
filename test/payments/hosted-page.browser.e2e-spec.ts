import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Browser, Page } from 'puppeteer-core';
import { eventually, startTestApp, TestApp } from '@billing/testing';
import { launchBrowser, phonePage as phonePageIn, TEST_OUTPUT as OUTPUT } from '../support/browser';

/**
 * The hosted invoice page in a real browser: headless Chromium from the @sparticuz/chromium npm package (nothing
 * installed at test time, no system browser), driven by puppeteer-core, launched once for the file. What a
 * customer sees at phone width, the PDF behind the link, paying with the sandbox's card tokens, a rotated link in a
 * second browser context, and that the page loads nothing from another origin and breaks none of its CSP.
 */
describe('Hosted invoice page in a browser', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  function environment() {
    const id = randomUUID();
    const call = (method: string, path: string, body?: unknown) => t.request(method, path, { environment: id, token: t.token([id]), body });
    return {
      id,
      call,
      async booked(): Promise<any> {
        const created = await call('POST', '/invoices', {
          customer: {
            id: randomUUID(),
            handle: 'ACME',
            name: 'Acme Widgets Ltd',
            billingAddress: { street1: '1 Long Street', city: 'Helsinki', country: 'FI' },
          },
          currency: 'EUR',
          dueDate: '2030-01-31',
          items: [
            { title: 'Pro plan, monthly', quantity: 1, unitAmount: 4_900 },
            { title: 'Extra seats', description: 'Seats above the plan', quantity: 3, unitAmount: 1_250 },
          ],
        });
        expect(created.status).toBe(201);
        const booked = await call('PUT', `/invoices/${created.body.id}/book`, {});
        expect(booked.status).toBe(200);
        return booked.body;
      },
    };
  }

  const phonePage = (context = browser.defaultBrowserContext()) => phonePageIn(context);

  const pagePath = (invoice: { hostedInvoiceUrl: string }) => new URL(invoice.hostedInvoiceUrl).pathname;
  const text = (page: Page, selector: string) => page.$eval(selector, (element) => (element as unknown as { innerText: string }).innerText);

  it('shows the invoice at phone width, serves its recorded PDF, pays with tok_success and shows paid after reload', async () => {
    const env = environment();
    expect((await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_browser-test' } })).status).toBe(200);
    const invoice = await env.booked();
    const { page, requests, console } = await phonePage();
    const response = await page.goto(`${t.baseUrl}${pagePath(invoice)}`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);

    const body = await text(page, 'body');
    expect(body).toContain(invoice.handle);
    expect(body).toContain('Acme Widgets Ltd');
    expect(body).toContain('Pro plan, monthly');
    expect(body).toContain('Extra seats');
    expect(await text(page, '#amount-due')).toBe('€86.50');
    expect(await text(page, '#status')).toBe('Open');
    expect(await page.$eval('html', (html) => html.lang)).toBe('en');
    // Readable on a phone: nothing wider than the screen, and the page's own style sheet applied (its hash in the CSP).
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await page.evaluate(`(({ scrollWidth, clientWidth }) => scrollWidth <= clientWidth)(document.querySelector('.document'))`)).toBe(true);
    expect(await page.evaluate(`getComputedStyle(document.querySelector('main')).maxWidth`)).not.toBe('none');
    await page.screenshot({ path: join(OUTPUT, 'hosted-invoice-page.png'), fullPage: true });

    const pdfUrl = await page.$eval('#pdf', (link) => (link as unknown as { href: string }).href);
    const pdf = Buffer.from(await (await fetch(pdfUrl)).arrayBuffer());
    const recorded = Buffer.from(
      await (
        await fetch(`${t.baseUrl}/invoices/${invoice.id}/pdf`, { headers: { authorization: `Bearer ${t.token([env.id])}`, 'x-environment': env.id } })
      ).arrayBuffer(),
    );
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.equals(recorded)).toBe(true);

    await page.type('#token', 'tok_success');
    await Promise.all([page.waitForNavigation(), page.click('#pay')]);
    expect(await text(page, '#notice')).toBe('Thank you: your payment succeeded.');
    expect(await page.$('#pay')).toBeNull();
    await eventually(
      async () => {
        await page.goto(`${t.baseUrl}${pagePath(invoice)}`);
        return text(page, '#status');
      },
      (status) => status === 'Paid',
      { what: 'the page showing paid' },
    );
    expect(await text(page, '#amount-due')).toBe('€0.00');
    expect(await page.$('#pay')).toBeNull();
    await page.screenshot({ path: join(OUTPUT, 'hosted-invoice-page-paid.png'), fullPage: true });

    const origin = new URL(t.baseUrl).origin;
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(console.filter((message) => /Content Security Policy/i.test(message))).toEqual([]);
    await page.close();
  });

  it('shows the decline message for a declined card and keeps the pay button', async () => {
    const env = environment();
    expect((await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_browser-test' } })).status).toBe(200);
    const invoice = await env.booked();
    const { page } = await phonePage();
    await page.goto(`${t.baseUrl}${pagePath(invoice)}`);
    await page.type('#token', 'tok_decline');
    await Promise.all([page.waitForNavigation(), page.click('#pay')]);
    expect(await text(page, '#notice')).toMatch(/^Your payment was declined: .+/);
    expect(await text(page, '#status')).toBe('Open');
    expect(await page.$('#pay')).not.toBeNull();
    await page.close();
  });

  it('shows the 404 page for a rotated link in another browser context', async () => {
    const env = environment();
    const invoice = await env.booked();
    const rotated = await env.call('PUT', `/invoices/${invoice.id}/hosted-link/rotate`, {});
    expect(rotated.status).toBe(200);
    const context = await browser.createBrowserContext();
    const { page, requests } = await phonePage(context);
    const old = await page.goto(`${t.baseUrl}${pagePath(invoice)}`);
    expect(old?.status()).toBe(404);
    expect(await text(page, 'h1')).toBe('Not found');
    const current = await page.goto(`${t.baseUrl}${pagePath(rotated.body)}`);
    expect(current?.status()).toBe(200);
    expect(await text(page, '#status')).toBe('Open');
    expect(requests.every((url) => url.startsWith(t.baseUrl))).toBe(true);
    await context.close();
  });
});
