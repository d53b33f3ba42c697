import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page } from 'puppeteer-core';
import { FakeClock, startTestApp, TestApp } from '@billing/testing';
import { launchBrowser, phonePage, TEST_OUTPUT } from '../support/browser';
import { analyticsEnvironment, fiveMonthsOfBilling } from './analytics-kit';

/** The README's picture of the page: this test's screenshot, copied. */
const DOCS_SCREENSHOT = join(__dirname, '..', '..', 'docs', 'analytics.png');

/**
 * The analytics page in headless Chromium (the hosted invoice page's setup, test/support/browser.ts) at phone width:
 * the bars and MRR points the browser shows carry the figures of GET /analytics/mrr and /revenue, their drawn heights
 * are proportional, nothing is wider than the screen, nothing loads from another origin, and no CSP violation.
 */
describe('Analytics page in a browser', () => {
  const clock = new FakeClock(new Date('2026-01-01T00:00:00.000Z'));
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Every bar and point under `selector` as the browser has it: its data attributes and its drawn height in CSS pixels. */
  const drawn = (page: Page, selector: string) =>
    page.$$eval(`${selector} [data-kind]`, (elements) =>
      elements.map((element) => ({
        column: element.getAttribute('data-column')!,
        kind: element.getAttribute('data-kind')!,
        amount: Number(element.getAttribute('data-amount')),
        height: element.getBoundingClientRect().height,
      })),
    );

  it('shows the bars of five months of billing with the JSON figures, at phone width, from its own origin only', async () => {
    const env = analyticsEnvironment(t);
    await fiveMonthsOfBilling(env);
    const { url } = (await env.call('POST', '/analytics/links', { ttlSeconds: 600 }, 200)).body;
    const { page, requests, console } = await phonePage(browser.defaultBrowserContext());
    await page.setExtraHTTPHeaders({ 'accept-language': 'en-GB' });
    const target = new URL(url);
    const response = await page.goto(`${t.baseUrl}${target.pathname}${target.search}&from=2026-01-01&to=2026-06-01`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);

    const mrr = await env.get('/analytics/mrr?from=2026-01-01&to=2026-06-01');
    const revenue = await env.get('/analytics/revenue?from=2026-01-01&to=2026-06-01');
    const mrrBars = await drawn(page, '#mrr');
    const kinds = ['new', 'expansion', 'reactivation', 'contraction', 'churn', 'mrr'];
    expect(mrrBars.map(({ column, kind, amount }) => [column, kind, amount]).sort()).toEqual(
      mrr.intervals.flatMap((i: any) => kinds.map((kind) => [i.start, kind, i[kind]])).sort(),
    );
    const revenueBars = await drawn(page, '#revenue');
    expect(revenueBars.map(({ column, kind, amount }) => [column, kind, amount]).sort()).toEqual(
      revenue.intervals
        .flatMap((i: any) => [
          [i.start, 'invoiced', i.invoiced],
          [i.start, 'collected', i.collected],
        ])
        .sort(),
    );
    // As drawn: one scale per chart, whatever the screen's width did to the SVG.
    for (const bars of [mrrBars.filter((bar) => bar.kind !== 'mrr'), revenueBars]) {
      const tallest = bars.reduce((a, b) => (Math.abs(b.amount) > Math.abs(a.amount) ? b : a));
      for (const bar of bars) expect(bar.height).toBeCloseTo((Math.abs(bar.amount) / Math.abs(tallest.amount)) * tallest.height, 0);
    }
    expect(mrrBars.some((bar) => bar.kind === 'churn' && bar.amount < 0 && bar.height > 0)).toBe(true);
    expect(await page.$eval('#mrr-now', (element) => element.textContent)).toBe('€279.00');

    // Readable on a phone: nothing wider than the screen, the page's own style sheet applied (its hash in the CSP).
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expect(await page.evaluate(`document.querySelector('#mrr svg').getBoundingClientRect().width`)).toBeLessThanOrEqual(375);
    expect(await page.evaluate(`getComputedStyle(document.querySelector('main')).maxWidth`)).not.toBe('none');

    const origin = new URL(t.baseUrl).origin;
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((request) => new URL(request).origin !== origin)).toEqual([]);
    expect(console.filter((message) => /Content Security Policy/i.test(message))).toEqual([]);

    const screenshot = join(TEST_OUTPUT, 'analytics.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    copyFileSync(screenshot, DOCS_SCREENSHOT);
    await page.close();
  });
});
