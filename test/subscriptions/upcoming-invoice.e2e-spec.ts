import { randomUUID } from 'node:crypto';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/**
 * GET /subscriptions/{id}/upcoming-invoice over HTTP against real Postgres on
 * the environment's test clock: the preview taken before billAt equals, field
 * by field, the invoice the billing engine books at billAt (bar id, number
 * and timestamps), period after period, with usage, tax, a month-end anchor
 * and a DST change; nothing is written; errors and another environment.
 */
describe('Subscriptions: the upcoming invoice equals the booked invoice', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = async (method: string, path: string, body?: unknown, expected?: number) => {
      const response = await t.request(method, path, { ...options, body });
      if (expected !== undefined && response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    return {
      id,
      call,
      async price(productId: string, fields: Record<string, unknown>): Promise<string> {
        const body = { priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming: 'advance', productId, ...fields };
        return (await call('POST', '/prices', body, 201)).body.id;
      },
      async advance(to: string) {
        return call('POST', '/test-clock/advance', { to }, 200);
      },
      async invoices(): Promise<any[]> {
        const page = await call('GET', '/invoices?limit=100', undefined, 200);
        const details = await Promise.all(page.body.items.map((item: { id: string }) => call('GET', `/invoices/${item.id}`, undefined, 200)));
        return details.map((d) => d.body).sort((a, b) => (a.handle < b.handle ? -1 : 1));
      },
    };
  }

  /** A booked invoice as a preview shows it: everything but id, number, status, settlements and timestamps; lines without their ids. */
  function asPreviewed(invoice: any) {
    const { date, dueDate, currency, memo, customer, totalExclVat, totalVat, totalInclVat } = invoice;
    return { date, dueDate, currency, memo, customer, items: invoice.items.map(({ id: _id, ...line }: any) => line), totalExclVat, totalVat, totalInclVat };
  }

  function withoutSubscriptionFields(preview: any) {
    const { subscriptionId: _subscriptionId, billAt: _billAt, usage: _usage, ...invoice } = preview;
    return invoice;
  }

  it('previews each of four monthly invoices (Europe/Helsinki, Jan 31 anchor, advance seat and graduated usage in arrears, taxed) exactly as booked', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    await env.call('POST', '/tax-codes', { code: 'VAT255', rate: 0.255, taxable: true }, 201);
    await env.call('POST', '/billable-metrics', { code: 'calls', name: 'API calls', aggregation: 'count' }, 201);
    await env.call('PUT', '/paymentsettings', { retryDays: [1], paymentTermsDays: 14 }, 200);
    const product = (await env.call('POST', '/products', { name: 'Pro plan' }, 201)).body.id;
    const seat = await env.price(product, { name: 'Seat', pricing: { eur: { unitAmount: 3100 } } });
    const tiers = [
      { upTo: 10, unitAmount: 50, flatAmount: 0 },
      { upTo: null, unitAmount: 20, flatAmount: 100 },
    ];
    const calls = await env.price(product, {
      name: 'Calls',
      priceModel: 'graduated',
      pricing: { eur: { tiers } },
      billingTiming: 'event_based',
      metricCode: 'calls',
    });
    const subscription = (
      await env.call(
        'POST',
        '/subscriptions',
        {
          customer: { id: randomUUID(), handle: 'C-1', name: 'Acme Oy' },
          currency: 'EUR',
          timeZone: 'Europe/Helsinki',
          term: { start: '2026-01-31', end: null },
          items: [
            { priceId: seat, quantity: 2, taxCode: 'VAT255' },
            { priceId: calls, taxCode: 'VAT255' },
          ],
        },
        201,
      )
    ).body;
    const path = `/subscriptions/${subscription.id}/upcoming-invoice`;

    // [clock before the preview, usage events sent then, expected billAt (local midnight), the usage period billed]
    const months: [string, number, string, { start: string; end: string } | null][] = [
      ['2026-01-20T12:00:00.000Z', 0, '2026-01-30T22:00:00.000Z', null],
      ['2026-02-10T12:00:00.000Z', 12, '2026-02-27T22:00:00.000Z', { start: '2026-01-31', end: '2026-02-27' }],
      ['2026-03-15T12:00:00.000Z', 3, '2026-03-30T21:00:00.000Z', { start: '2026-02-28', end: '2026-03-30' }],
      ['2026-04-10T12:00:00.000Z', 25, '2026-04-29T21:00:00.000Z', { start: '2026-03-31', end: '2026-04-29' }],
    ];
    let booked = 0;
    for (const [now, events, billAt, usagePeriod] of months) {
      await env.advance(now);
      if (events > 0) {
        const timestamp = new Date(Date.parse(now) - 3_600_000).toISOString();
        const batch = Array.from({ length: events }, () => ({
          id: randomUUID(),
          subscriptionId: subscription.id,
          metricCode: 'calls',
          timestamp,
          properties: {},
        }));
        await env.call('POST', '/usage-events', { events: batch }, 200);
      }
      const preview = (await env.call('GET', path, undefined, 200)).body;
      expect(preview).toMatchObject({ subscriptionId: subscription.id, billAt, currency: 'EUR', customer: { name: 'Acme Oy' } });
      expect(preview.usage).toEqual(
        usagePeriod === null
          ? []
          : [
              {
                itemId: subscription.items[1].id,
                metricCode: 'calls',
                periodStart: usagePeriod.start,
                periodEnd: usagePeriod.end,
                quantity: events,
                // By hand: 10 × 0.50 in the first tier, then 0.20 each and a 1.00 flat amount for reaching the second.
                amount: events <= 10 ? events * 50 : 500 + (events - 10) * 20 + 100,
              },
            ],
      );
      expect(preview.items.every((line: any) => line.tax.taxCode === 'VAT255' && line.tax.taxRate === 0.255)).toBe(true);
      expect(preview.totalVat).toBeGreaterThan(0);
      // Nothing is written: no invoice appears before billAt, however often the preview is asked for.
      expect((await env.call('GET', path, undefined, 200)).body).toEqual(preview);
      expect(await env.invoices()).toHaveLength(booked);

      await env.advance(billAt);
      const invoices = await env.invoices();
      expect(invoices).toHaveLength(++booked);
      const invoice = invoices[booked - 1];
      expect(invoice).toMatchObject({ status: 'booked', handle: `INV-${String(booked).padStart(6, '0')}` });
      expect(asPreviewed(invoice)).toEqual(withoutSubscriptionFields(preview));
    }
  });

  it('answers 409 no-upcoming-invoice when nothing is left to bill, and 404 for an unknown id or another environment', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const product = (await env.call('POST', '/products', { name: 'Pass' }, 201)).body.id;
    const pass = await env.price(product, { name: 'Pass', pricing: { eur: { unitAmount: 900 } } });
    const subscription = (
      await env.call(
        'POST',
        '/subscriptions',
        {
          customer: { id: randomUUID(), handle: 'C-2', name: 'Acme Oy' },
          currency: 'EUR',
          term: { start: '2026-01-20', end: '2026-02-19' },
          items: [{ priceId: pass }],
        },
        201,
      )
    ).body;
    const path = `/subscriptions/${subscription.id}/upcoming-invoice`;
    // Its one advance charge is due now: that is still the upcoming invoice until the engine books it.
    expect((await env.call('GET', path, undefined, 200)).body).toMatchObject({ billAt: '2026-01-20T00:00:00.000Z', totalExclVat: 900 });
    await env.advance('2026-01-21T00:00:00.000Z');
    expectProblem(await env.call('GET', path), 409, 'no-upcoming-invoice');
    await env.advance('2026-03-01T00:00:00.000Z');
    expect((await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body.status).toBe('ended');
    expectProblem(await env.call('GET', path), 409, 'no-upcoming-invoice');

    expectProblem(await env.call('GET', `/subscriptions/${randomUUID()}/upcoming-invoice`), 404, 'not-found');
    const other = environment();
    expectProblem(await other.call('GET', path), 404, 'not-found');
  });
});
