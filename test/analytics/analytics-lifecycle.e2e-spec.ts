import { randomUUID } from 'node:crypto';
import { analyticsContext } from '@billing/analytics';
import { ProjectionRunner } from '@billing/event-store';
import { replayReadModels } from '@billing/platform';
import { FakeClock, startTestApp, TestApp } from '@billing/testing';
import { AnalyticsEnvironment, analyticsEnvironment } from './analytics-kit';

/**
 * Issue 28 §4 over HTTP on the environment's test clock: 30 subscriptions over 14 months (January 2026 to February
 * 2027) with every lifecycle event — trials, upgrades, downgrades, quantity changes now and at period end, pauses
 * resumed by hand and by themselves, cancels at period end and now, a cancel undone, new subscriptions of churned
 * customers (reactivations), monthly, yearly and weekly prices, subscription and customer discounts (forever,
 * repeating, once), payments, refunds, credit notes and a void. Then, for every month: start + movements = end to
 * the cent; revenue equal to GET /invoices and collected to GET /payments; answers as of three earlier instants
 * unchanged by everything after them; and a rebuild of the analytics projection answering exactly the same.
 */
describe('Analytics over 14 months of 30 subscriptions', () => {
  const clock = new FakeClock(new Date('2026-01-01T00:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  const RANGE = 'from=2026-01-01&to=2027-03-01';
  const KINDS = ['new', 'expansion', 'contraction', 'churn', 'reactivation'] as const;

  /** Every item of a paged list (GET /invoices, /payments, /subscriptions). */
  async function all(env: AnalyticsEnvironment, path: string, filter = ''): Promise<any[]> {
    const items: any[] = [];
    for (let token: string | null = null; ;) {
      const page = await env.get(`${path}?limit=100${filter}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
      items.push(...page.items);
      token = page.nextPageToken;
      if (!token) return items;
    }
  }

  /** The three answers, as of `asOf` or now. */
  async function answers(env: AnalyticsEnvironment, asOf?: string) {
    const at = asOf ? `&asOf=${asOf}` : '';
    return {
      mrr: await env.get(`/analytics/mrr?${RANGE}${at}`),
      revenue: await env.get(`/analytics/revenue?${RANGE}${at}`),
      receivables: await env.get(asOf ? `/analytics/receivables?asOf=${asOf}` : '/analytics/receivables'),
    };
  }

  /** The 10th of the month `index` months after January 2026. */
  const monthDay = (index: number) => new Date(Date.UTC(2026, index, 10)).toISOString().slice(0, 10);

  it('every month: start + movements = end, revenue and collected reconcile, as-of answers stay, a rebuild answers the same', async () => {
    const env = analyticsEnvironment(t);
    await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: `sk_sandbox_${randomUUID().replace(/-/g, '')}` } }, 200);
    let today = '2026-01-10';
    await env.advance(`${today}T08:00:00.000Z`);
    const basic = await env.price(2_900);
    const premium = await env.price(9_900);
    const yearly = await env.price(120_000, 'year');
    const weekly = await env.price(1_500, 'week');
    const tenPercent = await env.coupon({ percentOff: 10, duration: 'forever' });
    const fiveOff = await env.coupon({ amountOff: { EUR: 500 }, duration: 'repeating', durationInMonths: 3 });
    const twenty = await env.coupon({ percentOff: 20, duration: 'forever' });
    const onceOff = await env.coupon({ amountOff: { EUR: 1_000 }, duration: 'once' });
    const customers: string[] = [];
    for (let i = 0; i < 10; i++) customers.push(await env.customer(i === 0 ? [twenty] : i === 6 ? [onceOff] : []));

    const subscriptions: any[] = [];
    const subscribe = async (priceId: string, fields: Record<string, unknown> = {}, quantity = 1) => {
      const { customerId, ...rest } = fields;
      const owner = customerId === undefined ? {} : { customer: undefined, customerId };
      subscriptions.push(await env.subscription({ term: { start: today, end: null }, items: [{ priceId, quantity }], ...owner, ...rest }));
    };
    const sub = (index: number) => `/subscriptions/${subscriptions[index].id}`;
    const item = (index: number) => subscriptions[index].items[0].id;
    const change = (index: number, changed: Record<string, unknown>, body: Record<string, unknown> = {}, status = 200) =>
      env.call('POST', `${sub(index)}/changes`, { items: [{ id: item(index), ...changed }], ...body }, status);
    const payments: any[] = [];
    const pay = async (invoiceId: string) => {
      const payment = (await env.call('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201)).body;
      payments.push(payment);
      return payment;
    };
    /** Pays the two oldest open subscription invoices. */
    const payOpen = async () => {
      const open = (await all(env, '/invoices')).filter((i) => i.status === 'booked' && i.type === 'invoice' && i.totalDue > 0).reverse();
      for (const invoice of open.slice(0, 2)) await pay(invoice.id);
    };
    /** A credit note of 10.00 on the customer's latest invoice still due (it reduces what is due). */
    const credit = async (customerId: string) => {
      const due = (await all(env, '/invoices', `&customerId=${customerId}&type=invoice&status=booked`)).find((invoice) => invoice.totalDue >= 1_000);
      await env.call('POST', `/invoices/${due.id}/credit-notes`, { amount: 1_000, reason: 'other' }, 201);
    };
    let toVoid = '';
    let discountOfC1 = '';

    const months: (() => Promise<void>)[] = [
      async () => {
        await subscribe(basic, { customerId: customers[0] }); // 0: the customer's 20 % forever
        await subscribe(basic, { customerId: customers[1] }, 2); // 1
        await subscribe(basic, { customerId: customers[2] }, 3); // 2
        await subscribe(basic, { customerId: customers[3] }, 4); // 3
        await subscribe(premium); // 4
        await subscribe(premium); // 5
        await subscribe(yearly, { customerId: customers[4] }); // 6
        await subscribe(weekly, {}, 2); // 7
        await subscribe(basic, { trialDays: 14 }); // 8
        await subscribe(basic, { customerId: customers[5], trialDays: 45 }); // 9
        await subscribe(basic, { discounts: [{ couponId: tenPercent }] }); // 10
        await subscribe(premium, { discounts: [{ couponId: fiveOff }] }); // 11: 5.00 off for 3 months
        await pay((await env.bookedInvoice(50_000)).id);
      },
      async () => {
        await change(0, { priceId: premium }); // upgrade
        await change(1, { quantity: 5 }); // more seats
        await env.call('PUT', `${sub(4)}/pause`, {}, 200);
        await subscribe(weekly, { customerId: customers[6] }); // 12: the customer's once discount, never MRR
        await subscribe(basic, { customerId: customers[7] }); // 13
        await payOpen();
      },
      async () => {
        await change(5, { priceId: basic }); // downgrade
        await env.call('PUT', `${sub(2)}/cancel`, {}, 202); // at period end
        await env.call('PUT', `${sub(4)}/resume`, {}, 200);
        discountOfC1 = (await env.call('PUT', `/customers/${customers[1]}`, { discounts: [{ couponId: twenty }] }, 200)).body.discounts[0].id;
        await env.call('PUT', `/payments/${payments[0].id}/refund`, { amount: 10_000 }, 200);
        await subscribe(premium, {}, 2); // 14
        await subscribe(yearly, { customerId: customers[8] }); // 15
      },
      async () => {
        await env.call('PUT', `${sub(3)}/cancel`, { at: 'now' }, 202);
        await credit(customers[1]);
        toVoid = (await env.bookedInvoice(20_000)).id;
        await subscribe(basic, { trialDays: 30 }); // 16
        await subscribe(weekly, { customerId: customers[9] }); // 17
      },
      async () => {
        await subscribe(basic, { customerId: customers[3] }); // 18: the churned customer back
        await env.call('DELETE', `/customers/${customers[1]}/discounts/${discountOfC1}`, undefined, 200);
        await change(14, { quantity: 1 });
        await env.call('PUT', `/invoices/${toVoid}/void`, {}, 200);
      },
      async () => {
        await subscribe(premium, { customerId: customers[2] }); // 19: back after its cancel at period end
        await env.call('PUT', `${sub(10)}/pause`, { resumeAt: '2026-08-01' }, 200);
        await payOpen();
      },
      async () => {
        await subscribe(basic); // 20
        await subscribe(yearly, { discounts: [{ couponId: tenPercent }] }); // 21
        await change(7, { quantity: 3 });
        await env.call('PUT', `${sub(6)}/cancel`, { at: 'now', prorate: true }, 202);
      },
      async () => {
        await subscribe(premium); // 22
        await change(11, { priceId: basic }, { effective: 'period_end' }, 202); // a downgrade the engine applies later
      },
      async () => {
        await subscribe(basic, { customerId: customers[4] }); // 23: back after its yearly was cancelled
        await subscribe(weekly); // 24
        await env.call('PUT', `${sub(12)}/cancel`, {}, 202);
        await payOpen();
        await env.call('PUT', `/payments/${payments[payments.length - 1].id}/refund`, { amount: 500 }, 200);
      },
      async () => {
        await subscribe(basic, { customerId: customers[6], trialDays: 10 }); // 25
        await change(13, { priceId: premium });
        await credit(customers[2]);
      },
      async () => {
        await subscribe(premium); // 26
        await subscribe(basic, {}, 3); // 27
        await env.call('PUT', `${sub(20)}/cancel`, { at: 'now' }, 202);
      },
      async () => {
        await subscribe(yearly); // 28
        await env.call('PUT', `${sub(22)}/cancel`, {}, 202);
        await env.call('PUT', `${sub(22)}/reactivate`, {}, 200);
      },
      async () => {
        await subscribe(basic, { customerId: customers[9] }); // 29
        await env.call('PUT', `${sub(27)}/pause`, {}, 200);
      },
      async () => {
        await env.call('PUT', `${sub(27)}/resume`, {}, 200);
        await payOpen();
      },
    ];

    // As of the instants after months 3, 7 and 11, asked once the next advance answered: the engine bills a new
    // subscription's first invoice after its creation answered, at the same frozen instant of the test clock, so an
    // instant is settled only when the environment's clock has moved past it.
    const instants = [3, 7, 11].map((index) => `${monthDay(index)}T08:00:00.000Z`);
    const earlier: { asOf: string; answers: Awaited<ReturnType<typeof answers>> }[] = [];
    for (const [index, month] of months.entries()) {
      if (index > 0) {
        today = monthDay(index);
        await env.advance(`${today}T08:00:00.000Z`);
      }
      for (const asOf of instants.filter((instant) => instant < `${today}T08:00:00.000Z` && !earlier.some((e) => e.asOf === instant)))
        earlier.push({ asOf, answers: await answers(env, asOf) });
      await month();
    }
    await env.advance('2027-02-20T08:00:00.000Z');
    expect(subscriptions).toHaveLength(30);
    const now = await answers(env);

    // MRR: every month starts where the last ended and start + movements = end, to the cent; every kind of movement
    // happened; the subscriptions with MRR now are those active or cancelled but still served.
    now.mrr.intervals.forEach((interval: any, i: number) => {
      expect(interval.startMrr + KINDS.reduce((sum, kind) => sum + interval[kind], 0)).toBe(interval.mrr);
      expect(interval.startMrr).toBe(i === 0 ? 0 : now.mrr.intervals[i - 1].mrr);
    });
    // By hand, the first five months (monthly 29.00 basic and 99.00 premium, 1 200.00 a year, 15.00 a week):
    // January: 12 subscriptions, the 45-day trial not yet ended: 2 320 (20 % off for customer 0) + 5 800 + 8 700 +
    // 11 600 + 9 900 + 9 900 + 10 000 (yearly ÷ 12) + 13 000 (2 × 1 500 × 52 ÷ 12) + 2 900 (its 14-day trial ended)
    // + 2 610 (10 %) + 9 400 (5.00 off) = 86 130, all new. February: new 2 900 (the long trial ends) + 6 500 (weekly;
    // its customer's once discount is not MRR) + 2 900; expansion 5 600 (upgrade, after the customer's 20 %) + 8 700
    // (2 → 5 seats); churn −9 900 (paused). March: new 19 800 + 10 000; contraction −7 000 (downgrade) − 2 900 (20 %
    // applied to customer 1); reactivation 9 900 (resumed). April: new 6 500 (the 30-day trial still runs); expansion
    // 500 (the 3 months of 5.00 off are over at its renewal); churn −11 600 (cancelled now) − 8 700 (period end).
    // May: new 2 900 (the trial ended), expansion 2 900 (customer 1's discount removed), contraction −9 900 (2 → 1),
    // reactivation 2 900 (customer 3 back).
    expect(now.mrr.intervals.slice(0, 5).map((i: any) => KINDS.map((kind) => i[kind]))).toEqual([
      [86_130, 0, 0, 0, 0],
      [12_300, 14_300, 0, -9_900, 0],
      [29_800, 0, -9_900, 0, 9_900],
      [6_500, 500, 0, -20_300, 0],
      [2_900, 2_900, -9_900, 0, 2_900],
    ]);
    const total = (kind: (typeof KINDS)[number]) => now.mrr.intervals.reduce((sum: number, interval: any) => sum + interval[kind], 0);
    expect([total('new') > 0, total('expansion') > 0, total('contraction') < 0, total('churn') < 0, total('reactivation') > 0]).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    const views = await all(env, '/subscriptions');
    const served = views.filter((s) => s.status === 'active' || (s.status === 'cancelled' && !(s.trial && s.trial.endedAt === null)));
    expect(now.mrr.intervals[13].activeSubscriptions).toBe(served.length);

    // Revenue: each month's booked invoices and credit notes of GET /invoices (the void one left out), to the cent;
    // collected: payments succeeded in the month less refunds succeeded in it.
    const invoices = (await all(env, '/invoices')).filter((invoice) => invoice.status === 'booked');
    expect(invoices.filter((invoice) => invoice.type === 'credit_note').length).toBeGreaterThanOrEqual(2);
    const allPayments = await all(env, '/payments');
    const month = (date: string) => date.slice(0, 7);
    now.revenue.intervals.forEach((interval: any) => {
      const inMonth = invoices.filter((invoice) => month(invoice.date) === month(interval.start));
      const sum = (of: any[], value: (x: any) => number) => of.reduce((s, x) => s + value(x), 0);
      expect([interval.invoiced, interval.tax, interval.creditNotes]).toEqual([
        sum(inMonth, (i) => i.totalInclVat),
        sum(inMonth, (i) => i.totalVat),
        sum(
          inMonth.filter((i) => i.type === 'credit_note'),
          (i) => i.totalInclVat,
        ),
      ]);
      const paid = sum(
        allPayments.filter((p) => p.status === 'succeeded' && month(p.createdAt) === month(interval.start)),
        (p) => p.amount,
      );
      const refunded = sum(
        allPayments.flatMap((p) => p.refunds).filter((r) => r.status === 'succeeded' && month(r.createdAt) === month(interval.start)),
        (r) => r.amount,
      );
      expect(interval.collected).toBe(paid - refunded);
    });
    expect(now.revenue.intervals.filter((interval: any) => interval.collected !== 0).length).toBeGreaterThanOrEqual(5);

    // As of earlier instants: the same answers after all that came later (which did change the answers of now).
    for (const { asOf, answers: before } of earlier) {
      expect(await answers(env, asOf)).toEqual(before);
      expect(before.mrr.intervals.map((i: any) => i.mrr)).not.toEqual(now.mrr.intervals.map((i: any) => i.mrr));
    }

    // Replay equal: rebuilt from the log in a shadow schema, every analytics table holds the same rows; and the
    // projection rebuilt in place answers exactly the same, now and as of every instant.
    const [report] = await replayReadModels({ dataSource: t.dataSource, databaseUrl: t.database.url, contexts: [analyticsContext] });
    expect(report.tables.map(({ table, equal }) => [table, equal])).toEqual(analyticsContext.projections[0].tables.map((table) => [table, true]));
    await t.app.get(ProjectionRunner).rebuild(analyticsContext.projections[0].name);
    expect(await answers(env)).toEqual(now);
    for (const { asOf, answers: before } of earlier) expect(await answers(env, asOf)).toEqual(before);
  }, 300_000);
});
