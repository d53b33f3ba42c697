import { randomUUID } from 'node:crypto';
import { analyticsContext } from '@billing/analytics';
import { replayReadModels } from '@billing/platform';
import { eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { analyticsEnvironment } from './analytics-kit';

/**
 * Revenue analytics (issue 28) over HTTP against real Postgres on the environment's test clock: four months of
 * subscription billing with a cancellation, direct invoices, a payment, a refund and a credit note; revenue per
 * closed month reconciled to the cent with GET /invoices and GET /payments, MRR and its movements, receivables by
 * age, as-of answers unchanged after later events, every 422, another environment, and a rebuild equal to the live
 * read models.
 */
describe('Analytics: revenue, MRR and receivables from the log', () => {
  const SECRET = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
  const clock = new FakeClock(new Date('2026-01-01T00:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  const environment = () => analyticsEnvironment(t);

  it('revenue per closed month equals the booked invoices and credit notes of GET /invoices; collected equals payments less refunds; MRR moves as the subscriptions did', async () => {
    const env = environment();
    await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } }, 200);
    await env.advance('2026-01-01T08:00:00.000Z');
    const price = await env.monthlyPrice(3100);
    const a = await env.subscribe(price, '2026-01-01');
    await env.subscribe(price, '2026-01-01', 2);
    await env.advance('2026-02-10T08:00:00.000Z');
    const direct = await env.bookedInvoice(50_000);
    const payment = (await env.call('POST', '/payments', { invoiceId: direct.id, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201)).body;
    expect(payment.status).toBe('succeeded');
    await env.advance('2026-03-05T08:00:00.000Z');
    await env.call('PUT', `/payments/${payment.id}/refund`, { amount: 7_000 }, 200);
    const credited = await env.bookedInvoice(20_000);
    await env.call('POST', `/invoices/${credited.id}/credit-notes`, { amount: 4_000, reason: 'other' }, 201);
    await env.call('PUT', `/subscriptions/${a.id}/cancel`, { at: 'now' }, 202);
    await env.advance('2026-04-20T08:00:00.000Z');

    const revenue = await env.get('/analytics/revenue?from=2026-01-01&to=2026-05-01&interval=month&currency=eur');
    expect(revenue).toMatchObject({ currency: 'EUR', interval: 'month', from: '2026-01-01', to: '2026-05-01' });
    const invoices: any[] = (await env.get('/invoices?limit=100')).items.filter((invoice: any) => invoice.status === 'booked');
    const payments: any[] = (await env.get('/payments?limit=100')).items;
    for (const interval of revenue.intervals) {
      const inMonth = invoices.filter((invoice) => invoice.date >= interval.start && invoice.date < interval.end);
      expect(interval.invoiced).toBe(inMonth.reduce((sum, invoice) => sum + invoice.totalInclVat, 0));
      expect(interval.tax).toBe(inMonth.reduce((sum, invoice) => sum + invoice.totalVat, 0));
      expect(interval.creditNotes).toBe(inMonth.filter((invoice) => invoice.type === 'credit_note').reduce((sum, invoice) => sum + invoice.totalInclVat, 0));
    }
    const collected = revenue.intervals.reduce((sum: number, interval: any) => sum + interval.collected, 0);
    const paid = payments.filter((p) => p.status === 'succeeded').reduce((sum, p) => sum + p.amount - p.refundedAmount, 0);
    expect(collected).toBe(paid);
    // By hand: January bills 3100 + 6200; February the same and the direct 50 000; March 1 the same, the credited invoice
    // and its credit note, and a's cancel-now credit note of its unused March days; April b alone.
    expect(revenue.intervals.map((i: any) => i.collected)).toEqual([0, 50_000, -7_000, 0]);
    expect(revenue.intervals[0].invoiced).toBe(9_300);
    expect(revenue.intervals[1].invoiced).toBe(59_300);
    expect(revenue.intervals[3].invoiced).toBe(6_200);

    const mrr = await env.get('/analytics/mrr?from=2026-01-01&to=2026-05-01&interval=month');
    expect(mrr.intervals.map((i: any) => [i.startMrr, i.new, i.churn, i.mrr, i.activeSubscriptions, i.activeCustomers, i.arpa])).toEqual([
      [0, 9_300, 0, 9_300, 2, 2, 4_650],
      [9_300, 0, 0, 9_300, 2, 2, 4_650],
      [9_300, 0, -3_100, 6_200, 1, 1, 6_200],
      [6_200, 0, 0, 6_200, 1, 1, 6_200],
    ]);
    for (const i of mrr.intervals) expect(i.startMrr + i.new + i.expansion + i.contraction + i.churn + i.reactivation).toBe(i.mrr);

    const receivables = await env.get('/analytics/receivables');
    const open = invoices.filter((invoice) => invoice.type === 'invoice' && invoice.totalDue > 0);
    expect(receivables.total).toBe(open.reduce((sum, invoice) => sum + invoice.totalDue, 0));
    expect(receivables.largest.map((i: any) => i.invoiceId).sort()).toEqual(open.map((invoice) => invoice.id).sort());
    expect(Object.values(receivables.buckets).reduce((sum: number, amount) => sum + (amount as number), 0)).toBe(receivables.total);
    expect(receivables.largest[0]).toMatchObject({ invoiceId: credited.id, open: 16_000 });

    const [report] = await replayReadModels({ dataSource: t.dataSource, databaseUrl: t.database.url, contexts: [analyticsContext] });
    expect(report.tables.map(({ table, equal }) => [table, equal])).toEqual(analyticsContext.projections[0].tables.map((table) => [table, true]));
  });

  it("counts a customer record's recurring discount in MRR from when it is applied until it is removed, a once discount never; trialing and paused subscriptions count 0", async () => {
    const env = environment();
    await env.advance('2026-01-01T08:00:00.000Z');
    const price = await env.monthlyPrice(10_000);
    const discounted = await env.customer();
    const withOnce = await env.customer([await env.coupon({ amountOff: { EUR: 3_000 }, duration: 'once' })]);
    await env.subscription({ customer: undefined, customerId: discounted, term: { start: '2026-01-01', end: null }, items: [{ priceId: price }] });
    const paused = await env.subscription({ customer: undefined, customerId: withOnce, term: { start: '2026-01-01', end: null }, items: [{ priceId: price }] });
    await env.subscription({ term: { start: '2026-01-01', end: null }, trialDays: 31, items: [{ priceId: price }] });
    await env.advance('2026-02-10T08:00:00.000Z');
    const twenty = await env.coupon({ percentOff: 20, duration: 'forever' });
    const [discount] = (await env.call('PUT', `/customers/${discounted}`, { discounts: [{ couponId: twenty }] }, 200)).body.discounts;
    await env.call('PUT', `/subscriptions/${paused.id}/pause`, {}, 200);
    const asOf = '2026-02-10T08:00:00.000Z';
    const february = await env.get(`/analytics/mrr?from=2026-02-01&to=2026-03-01&asOf=${asOf}`);
    await env.advance('2026-03-10T08:00:00.000Z');
    await env.call('DELETE', `/customers/${discounted}/discounts/${discount.id}`, undefined, 200);
    await env.call('PUT', `/subscriptions/${paused.id}/resume`, {}, 200);

    const mrr = await env.get('/analytics/mrr?from=2026-01-01&to=2026-04-01');
    // January: two subscriptions of 10 000 (the once discount is not MRR), the third trialing (0). February: the
    // trial ends on the 1st (new), 20 % off the first (contraction), the second paused (churn). March: the discount
    // removed (expansion) and the pause resumed (reactivation).
    expect(mrr.intervals.map((i: any) => [i.new, i.expansion, i.contraction, i.churn, i.reactivation, i.mrr, i.activeSubscriptions])).toEqual([
      [20_000, 0, 0, 0, 0, 20_000, 2],
      [10_000, 0, -2_000, -10_000, 0, 18_000, 2],
      [0, 2_000, 0, 0, 10_000, 30_000, 3],
    ]);
    expect(await env.get(`/analytics/mrr?from=2026-02-01&to=2026-03-01&asOf=${asOf}`)).toEqual(february);
    expect(february.intervals[0]).toMatchObject({ mrr: 18_000, contraction: -2_000 });
  });

  it('reports usage billed per interval as usageRevenue, outside MRR', async () => {
    const env = environment();
    await env.advance('2026-01-01T08:00:00.000Z');
    await env.call('POST', '/billable-metrics', { code: 'api_calls', name: 'API calls', aggregation: 'count' }, 201);
    const productId = (await env.call('POST', '/products', { name: 'Usage plan' }, 201)).body.id;
    const usagePrice = {
      name: 'Usage',
      priceModel: 'fee',
      pricing: { eur: { unitAmount: 100 } },
      purchase: 'recurring',
      termCount: 1,
      termUnit: 'month',
      billingTiming: 'event_based',
      metricCode: 'api_calls',
      productId,
    };
    const priceId = (await env.call('POST', '/prices', usagePrice, 201)).body.id;
    const body = {
      customer: { id: randomUUID(), handle: null, name: 'Metered Oy' },
      currency: 'EUR',
      term: { start: '2026-01-01', end: null },
      items: [{ priceId }],
    };
    const subscription = (await env.call('POST', '/subscriptions', body, 201)).body;
    const calls = (timestamp: string, count: number) =>
      Array.from({ length: count }, () => ({ id: randomUUID(), subscriptionId: subscription.id, metricCode: 'api_calls', timestamp, properties: {} }));
    // Each batch sent after its calls happened (the environment's clock): 3 in January, 2 in February.
    await env.advance('2026-01-20T08:00:00.000Z');
    expect((await env.call('POST', '/usage-events', { events: calls('2026-01-10T10:00:00.000Z', 3) }, 200)).body).toMatchObject({ accepted: 3 });
    await env.advance('2026-02-15T08:00:00.000Z');
    expect((await env.call('POST', '/usage-events', { events: calls('2026-02-11T10:00:00.000Z', 2) }, 200)).body).toMatchObject({ accepted: 2 });
    await env.advance('2026-03-10T08:00:00.000Z');

    // The engine bills after the advance answered: wait for both invoices.
    const invoices: any[] = await eventually(
      async () => ((await env.get('/invoices?limit=100')).items as any[]).filter((invoice) => invoice.status === 'booked'),
      (items) => items.length === 2,
      { what: 'the two usage invoices' },
    );
    const mrr = await env.get('/analytics/mrr?from=2026-01-01&to=2026-04-01');
    // January's 3 calls are billed on February 1's invoice, February's 2 on March 1's; usage is never MRR.
    expect(mrr.intervals.map((i: any) => [i.usageRevenue, i.mrr])).toEqual([
      [0, 0],
      [300, 0],
      [200, 0],
    ]);
    expect(invoices.map((invoice) => [invoice.date, invoice.totalExclVat ?? invoice.totalInclVat - invoice.totalVat]).sort()).toEqual([
      ['2026-02-01', 300],
      ['2026-03-01', 200],
    ]);
  });

  it('answers as of an instant the same after later events; without asOf the later events count', async () => {
    const env = environment();
    await env.advance('2026-06-01T08:00:00.000Z');
    await env.bookedInvoice(10_000, 'EUR', '2026-06-15');
    const asOf = '2026-06-01T09:00:00.000Z';
    await env.advance(asOf);
    const paths = [
      `/analytics/revenue?from=2026-06-01&to=2026-07-01&asOf=${asOf}`,
      `/analytics/receivables?asOf=${asOf}`,
      `/analytics/mrr?from=2026-06-01&to=2026-07-01&interval=week&asOf=${asOf}`,
    ];
    const before = await Promise.all(paths.map((path) => env.get(path)));
    await env.advance('2026-07-20T08:00:00.000Z');
    await env.bookedInvoice(2_500);
    await env.subscribe(await env.monthlyPrice(1_000), '2026-06-10');
    expect(await Promise.all(paths.map((path) => env.get(path)))).toEqual(before);
    expect(before[0].intervals[0].invoiced).toBe(10_000);
    // Without asOf (now) the later invoices count: everything still due. The engine bills the backdated subscription
    // (June 10 and July 10) after its creation answered: wait for both invoices.
    const invoices = await eventually(
      async () => (await env.get('/invoices?limit=100')).items as any[],
      (items) => items.length === 4,
      { what: "the backdated subscription's two invoices" },
    );
    const due = invoices.reduce((sum: number, invoice: any) => sum + invoice.totalDue, 0);
    expect(due).toBe(10_000 + 2_500 + 1_000 + 1_000);
    expect((await env.get('/analytics/receivables')).total).toBe(due);
    // On July 20: the 10 000 due June 15 and the subscription's 1 000 of June 10 are 35 and 40 days past due, its
    // 1 000 of July 10 is 10 days past due, the 2 500 of today is current.
    expect((await env.get('/analytics/receivables')).buckets).toMatchObject({ current: 2_500, '1-30': 1_000, '31-60': 11_000 });
    expect(before[1].buckets).toMatchObject({ current: 10_000 });
  });

  it('refuses bad queries with 422 at the parameter, asks for a currency when several are in use, and shows nothing of another environment', async () => {
    const env = environment();
    await env.advance('2026-01-10T08:00:00.000Z');
    const bad: [string, string][] = [
      ['/analytics/revenue?to=2026-02-01', '/query/from'],
      ['/analytics/revenue?from=2026-01-01', '/query/to'],
      ['/analytics/revenue?from=2026-02-30&to=2026-03-01', '/query/from'],
      ['/analytics/revenue?from=2026-02-01&to=2026-02-01', '/query/to'],
      ['/analytics/revenue?from=2026-01-01&to=2026-02-01&interval=year', '/query/interval'],
      ['/analytics/mrr?from=2000-01-01&to=2026-02-01&interval=day', '/query/interval'],
      ['/analytics/mrr?from=2026-01-01&to=2026-02-01&currency=XYZ', '/query/currency'],
      ['/analytics/receivables?asOf=yesterday', '/query/asOf'],
      ['/analytics/receivables?asOf=2026-01-11T00:00:00Z', '/query/asOf'],
      ['/analytics/receivables?limit=5', '/query/limit'],
    ];
    for (const [path, pointer] of bad) expectProblem(await env.call('GET', path), 422, 'validation-failed', pointer);

    expect(await env.get('/analytics/receivables')).toMatchObject({ currency: null, total: 0, largest: [] });
    await env.bookedInvoice(1_000, 'EUR');
    await env.bookedInvoice(2_000, 'usd');
    expectProblem(await env.call('GET', '/analytics/receivables'), 422, 'validation-failed', '/query/currency');
    expectProblem(await env.call('GET', '/analytics/revenue?from=2026-01-01&to=2026-02-01'), 422, 'validation-failed', '/query/currency');
    expect(await env.get('/analytics/receivables?currency=Usd')).toMatchObject({ currency: 'USD', total: 2_000 });

    const other = environment();
    expect(await other.get('/analytics/revenue?from=2026-01-01&to=2026-02-01&currency=EUR')).toMatchObject({
      intervals: [{ invoiced: 0, collected: 0, tax: 0, discounts: 0, creditNotes: 0 }],
    });
    expect(await other.get('/analytics/receivables')).toMatchObject({ currency: null, total: 0 });
  });
});
