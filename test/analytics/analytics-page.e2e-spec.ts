import { parseDocument } from 'htmlparser2';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { analyticsEnvironment, fiveMonthsOfBilling } from './analytics-kit';

/**
 * The analytics page (issue 28 §3) over HTTP: POST /analytics/links and its 422s, the page a link opens (its figures
 * in data attributes equal to the JSON answers, its CSP, its locale), and the 404 page for a forged, another key's or
 * expired token (expired in real time, the base clock: an environment's test clock does not move it). The same page
 * in a browser: analytics-page.browser.e2e-spec.ts.
 */
describe('Analytics page behind a signed link', () => {
  const clock = new FakeClock(new Date('2026-01-01T00:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { WEBHOOK_DISPATCHER_ENABLED: 'false', PUBLIC_BASE_URL: 'https://billing.example.com' } });
  });
  afterAll(() => t.close());

  /** The page at a link's path and query, without the API's headers (as a browser opens it). */
  const open = (url: string, headers: Record<string, string> = {}) =>
    t.request('GET', url.replace('https://billing.example.com', ''), { token: null, environment: null, headers });

  /** Every bar and marker of the page: `[column, kind, amount]`. */
  function figuresOf(html: string, chart: string): [string, string, number][] {
    const found: [string, string, number][] = [];
    const visit = (node: any, inside: boolean) => {
      const here = inside || node.attribs?.id === chart;
      if (here && node.attribs?.['data-kind'] !== undefined)
        found.push([node.attribs['data-column'], node.attribs['data-kind'], Number(node.attribs['data-amount'])]);
      for (const child of node.children ?? []) visit(child, here);
    };
    visit(parseDocument(html), false);
    return found;
  }

  it('given five months of billing, when the link is opened, then the bars equal GET /analytics/mrr, /revenue and /receivables', async () => {
    const env = analyticsEnvironment(t);
    await fiveMonthsOfBilling(env);
    const link = await env.call('POST', '/analytics/links', {}, 200);
    // Real time (the base clock, 2026-01-01T00:00Z) + 15 minutes, not the environment's May 20.
    expect(link.body.expiresAt).toBe('2026-01-01T00:15:00.000Z');
    expect(link.body.url).toMatch(/^https:\/\/billing\.example\.com\/analytics\?token=[A-Za-z0-9_-]{70}$/);

    const page = await open(`${link.body.url}&from=2026-01-01&to=2026-06-01`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
    );
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.text).not.toMatch(/<script|<link|src=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(page.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');

    const mrr = await env.get('/analytics/mrr?from=2026-01-01&to=2026-06-01');
    const revenue = await env.get('/analytics/revenue?from=2026-01-01&to=2026-06-01');
    const receivables = await env.get('/analytics/receivables');
    const kinds = ['new', 'expansion', 'reactivation', 'contraction', 'churn'];
    expect(figuresOf(page.text, 'mrr').sort()).toEqual(
      mrr.intervals.flatMap((i: any) => [...kinds.map((kind) => [i.start, kind, i[kind]]), [i.start, 'mrr', i.mrr]]).sort(),
    );
    expect(figuresOf(page.text, 'revenue').sort()).toEqual(
      revenue.intervals
        .flatMap((i: any) => [
          [i.start, 'invoiced', i.invoiced],
          [i.start, 'collected', i.collected],
        ])
        .sort(),
    );
    expect(figuresOf(page.text, 'receivables')).toEqual(Object.entries(receivables.buckets).map(([bucket, amount]) => [bucket, 'open', amount]));
    // The scenario's own figures, so the comparison above is not between two empty answers.
    expect(mrr.intervals.map((i: any) => [i.new, i.churn, i.mrr])).toEqual([
      [9_300, 0, 9_300],
      [9_300, 0, 18_600],
      [0, -3_100, 15_500],
      [12_400, 0, 27_900],
      [0, 0, 27_900],
    ]);
    expect(revenue.intervals[1].collected).toBe(50_000);
    expect(revenue.intervals[2].collected).toBe(-7_000);
    expect(page.text).toContain('<html lang="en">');
    expect(page.text).toContain('<span id="mrr-now">€279.00</span>');

    // Numbers in the browser's locale (environments have none); defaults: the last 12 months.
    const finnish = await open(link.body.url, { 'accept-language': 'fi-FI,fi;q=0.9,en;q=0.5' });
    expect(finnish.status).toBe(200);
    expect(finnish.text).toContain('<html lang="fi-FI">');
    expect(finnish.text).toMatch(/<span id="mrr-now">279,00\s€<\/span>/);
    expect(figuresOf(finnish.text, 'mrr').filter(([, kind]) => kind === 'mrr')).toHaveLength(12);
    expect(figuresOf(finnish.text, 'mrr')[0][0]).toBe('2025-06-01');
  });

  it('refuses a bad link request with 422, and asks for a login', async () => {
    const env = analyticsEnvironment(t);
    for (const [body, pointer] of [
      [{ ttlSeconds: 0 }, '/ttlSeconds'],
      [{ ttlSeconds: 86_401 }, '/ttlSeconds'],
      [{ ttlSeconds: '60' }, '/ttlSeconds'],
      [{ expires: 60 }, '/expires'],
    ] as const) {
      expectProblem(await env.call('POST', '/analytics/links', body), 422, 'validation-failed', pointer);
    }
    expect((await env.call('POST', '/analytics/links', { ttlSeconds: 86_400 }, 200)).body.expiresAt).toBeDefined();
    expect((await t.request('POST', '/analytics/links', { token: null, environment: env.id, body: {} })).status).toBe(401);
  });

  it('answers the same 404 page for a forged, missing or expired token, and a plain 422 page for a query it cannot answer', async () => {
    const env = analyticsEnvironment(t);
    await env.advance('2026-02-01T08:00:00.000Z');
    const { url } = (await env.call('POST', '/analytics/links', { ttlSeconds: 600 }, 200)).body;
    const token = new URL(url).searchParams.get('token')!;
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BA' : 'AA'}`;
    const notFound = await open('/analytics?token=nothing');
    expect(notFound.status).toBe(404);
    expect(notFound.text).toContain('<h1>Not found</h1>');
    expect(notFound.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    for (const path of [`/analytics?token=${forged}`, '/analytics']) {
      const answer = await open(path);
      expect([answer.status, answer.text]).toEqual([404, notFound.text]);
    }

    expect((await open(`${url}&from=2026-02-30`)).status).toBe(422);
    expect((await open(`${url}&from=2026-02-30`)).text).toContain('from must be a date (YYYY-MM-DD)');
    expect((await open(`${url}&limit=5`)).status).toBe(422);
    await env.bookedInvoice(1_000, 'EUR');
    await env.bookedInvoice(2_000, 'USD');
    expect((await open(url)).text).toContain('currency is required');
    expect((await open(`${url}&currency=usd`)).status).toBe(200);

    // The environment's test clock moving years on does not expire it; real time moving past its expiry does.
    await env.advance('2029-02-01T08:00:00.000Z');
    expect((await open(`${url}&currency=eur`)).status).toBe(200);
    clock.advance(599_999);
    expect((await open(`${url}&currency=eur`)).status).toBe(200);
    clock.advance(1);
    const expired = await open(`${url}&currency=eur`);
    expect([expired.status, expired.text]).toEqual([404, notFound.text]);
  });
});
