import { randomUUID } from 'node:crypto';
import { environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/**
 * Pause and resume (issue 23 §3) over HTTP against real Postgres on the environment's test clock: a pause
 * mid-month with its credit on the next invoice, the automatic resume at resumeAt with the pro-rata charge
 * from the resume day (as previewed), the anchor kept afterwards, a resume by hand, the notifications, every
 * 409 and 422, and another environment's subscription. Amounts are worked by hand in the comments.
 */
describe('Subscriptions: pause and resume', () => {
  const clock = new FakeClock(new Date('2026-01-01T00:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  function environment() {
    const id = randomUUID();
    const call = environmentCall(t, id);
    return {
      id,
      call,
      /** A product with a monthly price of 31.00 EUR (3100: whole cents per day of a 31-day month). */
      async price(billingTiming: 'advance' | 'arrears' = 'advance'): Promise<string> {
        const productId = (await call('POST', '/products', { name: 'Pro plan' }, 201)).body.id;
        const body = { priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming, productId, name: `Pro ${billingTiming}` };
        return (await call('POST', '/prices', { ...body, pricing: { eur: { unitAmount: 3100 } } }, 201)).body.id;
      },
      async subscribe(priceIds: string[], fields: Record<string, unknown> = {}) {
        const body = {
          customer: { id: randomUUID(), handle: 'C-1', name: 'Acme Oy' },
          currency: 'EUR',
          term: { start: '2026-01-01', end: null },
          items: priceIds.map((priceId) => ({ priceId })),
          ...fields,
        };
        return (await call('POST', '/subscriptions', body, 201)).body;
      },
      async advance(to: string) {
        return call('POST', '/test-clock/advance', { to }, 200);
      },
      async invoices(): Promise<any[]> {
        const page = await call('GET', '/invoices?limit=100', undefined, 200);
        const details = await Promise.all(page.body.items.map((item: { id: string }) => call('GET', `/invoices/${item.id}`, undefined, 200)));
        return details.map((d) => d.body).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.handle < b.handle ? -1 : 1));
      },
      async notifications(type: string): Promise<any[]> {
        return t.dataSource.query(`select data from webhook_notifications where environment_id = $1 and type = $2`, [id, type]);
      },
    };
  }

  /** An invoice's lines as [title, periodStart, periodEnd, quantity, unitAmount, discount, amount]. */
  const lines = (invoice: any) =>
    invoice.items.map((line: any) => [line.title, line.periodStart, line.periodEnd, line.quantity, line.unitAmount, line.discount?.amount ?? 0, line.amount]);

  /** A booked invoice as a preview shows it: everything but id, number, status, settlements and timestamps; lines without their ids. */
  function asPreviewed(invoice: any) {
    const { date, dueDate, currency, memo, customer, totalExclVat, totalVat, totalInclVat } = invoice;
    return { date, dueDate, currency, memo, customer, items: invoice.items.map(({ id: _id, ...line }: any) => line), totalExclVat, totalVat, totalInclVat };
  }

  it('pause mid-month then auto-resume at resumeAt: the credit on the next invoice, the resume charged pro rata (as previewed), the anchor kept', async () => {
    const env = environment();
    await env.advance('2026-01-01T00:00:00.000Z');
    await env.call('PUT', '/webhooks/subscribe', { url: 'https://example.com/hooks/pause' }, 200);
    const subscription = await env.subscribe([await env.price('advance'), await env.price('arrears')]);
    const path = `/subscriptions/${subscription.id}`;
    await env.advance('2026-01-01T00:01:00.000Z');
    expect((await env.invoices()).map((invoice) => invoice.totalExclVat)).toEqual([3100]);

    await env.advance('2026-01-10T10:00:00.000Z');
    const paused = await env.call('PUT', `${path}/pause`, { resumeAt: '2026-01-20' }, 200);
    expect(paused.body).toMatchObject({ status: 'paused', pausedAt: '2026-01-10T10:00:00.000Z', resumeAt: '2026-01-20', cancelAt: null });
    const listed = (await env.call('GET', '/subscriptions?status=paused', undefined, 200)).body.items;
    expect(listed.map((found: any) => found.id)).toEqual([subscription.id]);

    // Jan 11, the first paused day: the arrears used Jan 1–10 = 3100 × 10 ÷ 31 = 1000, and the advance-billed Jan 11–31 credited,
    // 3100 × 21 ÷ 31 = 2100 (a proration line waiting for this, the next invoice the engine books).
    await env.advance('2026-01-11T00:00:00.000Z');
    const [, atPause] = await env.invoices();
    expect(lines(atPause)).toEqual([
      ['Pro arrears', '2026-01-01', '2026-01-10', 1, 3100, 2100, 1000],
      ['Unused time: Pro advance', '2026-01-11', '2026-01-31', 1, -2100, 0, -2100],
    ]);
    expect(atPause).toMatchObject({ date: '2026-01-11', status: 'booked', totalExclVat: -1100 });

    // Nothing is billed while paused; the preview is the invoice the resume brings.
    await env.advance('2026-01-15T12:00:00.000Z');
    expect(await env.invoices()).toHaveLength(2);
    expect((await env.call('GET', path, undefined, 200)).body).toMatchObject({ status: 'paused', items: [{ billAt: '2026-01-20T00:00:00.000Z' }, {}] });
    const preview = (await env.call('GET', `${path}/upcoming-invoice`, undefined, 200)).body;
    expect(preview).toMatchObject({ billAt: '2026-01-20T00:00:00.000Z' });

    // Jan 20 00:00: resumed by the engine; Jan 20–31 is 12 of 31 days: 3100 × 12 ÷ 31 = 1200 (the 19 unused days its discount).
    await env.advance('2026-01-20T00:00:00.000Z');
    const [, , atResume] = await env.invoices();
    expect(lines(atResume)).toEqual([['Pro advance', '2026-01-20', '2026-01-31', 1, 3100, 1900, 1200]]);
    const { subscriptionId: _s, billAt: _b, usage: _u, ...previewed } = preview;
    expect(asPreviewed(atResume)).toEqual(previewed);
    const resumed = (await env.call('GET', path, undefined, 200)).body;
    expect(resumed).toMatchObject({ status: 'active', pausedAt: null, resumeAt: null });
    // The anchor is kept: February is a whole period from the 1st.
    expect(resumed.items.map((item: any) => item.period)).toEqual([
      { start: '2026-01-01', end: '2026-01-31' },
      { start: '2026-01-01', end: '2026-01-31' },
    ]);

    // Feb 1: February's advance (3100) and the arrears used Jan 20–31 (1200).
    await env.advance('2026-02-01T00:00:00.000Z');
    const february = (await env.invoices()).at(-1);
    expect(lines(february)).toEqual([
      ['Pro advance', '2026-02-01', '2026-02-28', 1, 3100, 0, 3100],
      ['Pro arrears', '2026-01-20', '2026-01-31', 1, 3100, 1900, 1200],
    ]);
    expect(february).toMatchObject({ date: '2026-02-01', totalExclVat: 4300 });

    await eventually(
      async () => [(await env.notifications('subscription.paused')).length, (await env.notifications('subscription.resumed')).length],
      ([pausedCount, resumedCount]) => pausedCount === 1 && resumedCount === 1,
      { what: 'the paused and resumed notifications' },
    );
    const [pausedNote] = await env.notifications('subscription.paused');
    expect(JSON.stringify(pausedNote.data)).toContain('"resumeAt":"2026-01-20"');
  });

  it('resumed by hand: billing goes on from today (pro rata), the credit on that invoice; anchor kept', async () => {
    const env = environment();
    await env.advance('2026-01-01T00:00:00.000Z');
    const subscription = await env.subscribe([await env.price('advance')]);
    const path = `/subscriptions/${subscription.id}`;
    await env.advance('2026-01-10T10:00:00.000Z');
    expect((await env.call('PUT', `${path}/pause`, undefined, 200)).body).toMatchObject({ status: 'paused', resumeAt: null });
    // Without arrears nothing is billed until the resume; the credit waits.
    await env.advance('2026-02-15T10:00:00.000Z');
    expect(await env.invoices()).toHaveLength(1);
    expect((await env.call('GET', path, undefined, 200)).body).toMatchObject({ status: 'paused', items: [{ billAt: null }] });

    const resumed = await env.call('PUT', `${path}/resume`, {}, 200);
    expect(resumed.body).toMatchObject({ status: 'active', pausedAt: null, resumeAt: null, items: [{ period: { start: '2026-02-01', end: '2026-02-28' } }] });
    await env.advance('2026-02-15T10:01:00.000Z');
    // Feb 15–28 is 14 of 28 days: 3100 × 14 ÷ 28 = 1550; with the pause's credit for Jan 11–31 (−2100): −550.
    const [, atResume] = await env.invoices();
    expect(lines(atResume)).toEqual([
      ['Pro advance', '2026-02-15', '2026-02-28', 1, 3100, 1550, 1550],
      ['Unused time: Pro advance', '2026-01-11', '2026-01-31', 1, -2100, 0, -2100],
    ]);
    expect(atResume).toMatchObject({ date: '2026-02-15', totalExclVat: -550 });
    await env.advance('2026-03-01T00:00:00.000Z');
    expect(lines((await env.invoices()).at(-1))).toEqual([['Pro advance', '2026-03-01', '2026-03-31', 1, 3100, 0, 3100]]);
  });

  it('refuses: pausing a paused, trialing or ended subscription and resuming one not paused (409); every bad resumeAt or body (422)', async () => {
    const env = environment();
    await env.advance('2026-01-10T10:00:00.000Z');
    const price = await env.price();
    const subscription = await env.subscribe([price]);
    const path = `/subscriptions/${subscription.id}`;
    expectProblem(await env.call('PUT', `${path}/resume`, {}), 409, 'subscription-not-paused');
    for (const [resumeAt, detail] of [
      ['2026-02-30', 'not a date'],
      ['soon', 'not a date'],
      ['2026-01-10', 'today'],
      ['2025-12-31', 'past'],
    ]) {
      const response = await env.call('PUT', `${path}/pause`, { resumeAt });
      expect([detail, response.status]).toEqual([detail, 422]);
      expectProblem(response, 422, 'validation-failed', '/resumeAt');
    }
    expectProblem(await env.call('PUT', `${path}/pause`, { resumeAt: 20260120 }), 422, 'validation-failed', '/resumeAt');
    expectProblem(await env.call('PUT', `${path}/pause`, { resumeAt: '2026-01-20', until: 'later' }), 422, 'validation-failed', '/until');
    expect((await env.call('GET', path, undefined, 200)).body.status).toBe('active');

    await env.call('PUT', `${path}/pause`, {}, 200);
    expectProblem(await env.call('PUT', `${path}/pause`, {}), 409, 'subscription-paused');
    expectProblem(await env.call('PUT', `${path}/resume`, { now: true }), 422, 'validation-failed');

    const trialing = await env.subscribe([price], { term: { start: '2026-01-10', end: null }, trialDays: 14 });
    expectProblem(await env.call('PUT', `/subscriptions/${trialing.id}/pause`, {}), 409, 'subscription-trialing');

    const ending = await env.subscribe([price], { term: { start: '2026-01-10', end: null } });
    await env.advance('2026-01-10T10:01:00.000Z');
    await env.call('PUT', `/subscriptions/${ending.id}/cancel`, { at: 'now' }, 202);
    await env.advance('2026-01-11T00:00:00.000Z');
    expectProblem(await env.call('PUT', `/subscriptions/${ending.id}/pause`, {}), 409, 'subscription-ended');
    expectProblem(await env.call('PUT', `/subscriptions/${ending.id}/resume`, {}), 409, 'subscription-ended');
  });

  it('another environment’s subscription is a 404 for pause and resume', async () => {
    const env = environment();
    const other = environment();
    await env.advance('2026-01-01T00:00:00.000Z');
    const subscription = await env.subscribe([await env.price()]);
    expectProblem(await other.call('PUT', `/subscriptions/${subscription.id}/pause`, { resumeAt: '2026-02-01' }), 404, 'not-found');
    await env.call('PUT', `/subscriptions/${subscription.id}/pause`, {}, 200);
    expectProblem(await other.call('PUT', `/subscriptions/${subscription.id}/resume`, {}), 404, 'not-found');
    expect((await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body.status).toBe('paused');
  });
});
