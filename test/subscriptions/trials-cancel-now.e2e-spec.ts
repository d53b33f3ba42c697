import { randomUUID } from 'node:crypto';
import { environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/**
 * Trials and cancel now (issue 23 §2 and §4) over HTTP against real Postgres on the environment's test
 * clock: a 14-day trial into a monthly plan (nothing billed in it, subscription.trial_will_end recorded once
 * 3 days before its end, the first invoice at its end with the new anchor, equal to the preview taken in the
 * trial), ending a trial now, a trial without a payment method (booked, not collected), cancel now with and
 * without a pro-rata credit (amounts worked by hand), cancel at the period end unchanged, every 422, and
 * another environment.
 */
describe('Subscriptions: trials and cancel now', () => {
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
      /** The subscription's events of a type, from the event log. */
      async events(subscriptionId: string, type: string): Promise<any[]> {
        return t.dataSource.query(`select data from events where environment_id = $1 and stream_id = $2 and event_type = $3`, [id, subscriptionId, type]);
      },
      async notifications(type: string): Promise<number> {
        const [row] = await t.dataSource.query(`select count(*)::int as n from webhook_notifications where environment_id = $1 and type = $2`, [id, type]);
        return row.n;
      },
    };
  }

  /** A booked invoice as a preview shows it: everything but id, number, status, settlements and timestamps; lines without their ids. */
  function asPreviewed(invoice: any) {
    const { date, dueDate, currency, memo, customer, totalExclVat, totalVat, totalInclVat } = invoice;
    return { date, dueDate, currency, memo, customer, items: invoice.items.map(({ id: _id, ...line }: any) => line), totalExclVat, totalVat, totalInclVat };
  }

  describe('trials', () => {
    it('a 14-day trial into a monthly plan (Europe/Helsinki): nothing billed in it, trial_will_end once on day 11, the first invoice at its end, as previewed, the anchor kept', async () => {
      const env = environment();
      await env.advance('2026-03-01T08:00:00.000Z');
      await env.call('PUT', '/webhooks/subscribe', { url: 'https://example.com/hooks/trials' }, 200);
      const price = await env.price();
      const subscription = await env.subscribe([price], { term: { start: '2026-03-01', end: null }, timeZone: 'Europe/Helsinki', trialDays: 14 });
      // Mar 1 – Mar 14 are free; Mar 15 (local midnight, UTC+2) is the first day billed and the anchor.
      expect(subscription).toMatchObject({
        status: 'trialing',
        trial: { start: '2026-03-01', end: '2026-03-15', endedAt: null },
        items: [{ billAt: '2026-03-14T22:00:00.000Z', period: { start: '2026-03-15', end: '2026-04-14' } }],
      });
      const path = `/subscriptions/${subscription.id}`;
      const listed = (await env.call('GET', '/subscriptions?status=trialing', undefined, 200)).body.items;
      expect(listed.map((found: any) => found.id)).toEqual([subscription.id]);
      const preview = (await env.call('GET', `${path}/upcoming-invoice`, undefined, 200)).body;
      expect(preview).toMatchObject({ billAt: '2026-03-14T22:00:00.000Z', totalExclVat: 3100 });
      expect(preview.items.map((line: any) => [line.periodStart, line.periodEnd, line.amount])).toEqual([['2026-03-15', '2026-04-14', 3100]]);

      // Day 11 of the trial (Mar 11, 23:00 local): not yet.
      await env.advance('2026-03-11T21:00:00.000Z');
      expect(await env.events(subscription.id, 'SubscriptionTrialEndAnnounced')).toHaveLength(0);
      // Mar 12 local midnight: 3 days before the end.
      await env.advance('2026-03-11T22:00:00.000Z');
      expect(await env.events(subscription.id, 'SubscriptionTrialEndAnnounced')).toEqual([
        { data: { subscriptionId: subscription.id, trialEnd: '2026-03-15', announcedAt: '2026-03-11T22:00:00.000Z' } },
      ]);
      await eventually(
        () => env.notifications('subscription.trial_will_end'),
        (n) => n === 1,
        { what: 'the trial_will_end notification' },
      );
      // The preview in the trial's last minute still equals the first invoice to come.
      await env.advance('2026-03-14T21:59:00.000Z');
      expect((await env.call('GET', path, undefined, 200)).body.status).toBe('trialing');
      expect(await env.invoices()).toHaveLength(0);
      const lastPreview = (await env.call('GET', `${path}/upcoming-invoice`, undefined, 200)).body;
      expect(lastPreview).toEqual(preview);

      await env.advance('2026-03-14T22:00:00.000Z');
      const [first] = await env.invoices();
      const { subscriptionId: _s, billAt: _b, usage: _u, ...previewed } = preview;
      expect(asPreviewed(first)).toEqual(previewed);
      expect(first).toMatchObject({ date: '2026-03-15', status: 'booked', totalExclVat: 3100 });
      const active = (await env.call('GET', path, undefined, 200)).body;
      expect(active).toMatchObject({ status: 'active', trial: { end: '2026-03-15', endedAt: '2026-03-14T22:00:00.000Z' } });
      // Once, however far the clock goes; the next period keeps the anchor day (Apr 15, local midnight in summer time).
      await env.advance('2026-04-14T21:00:00.000Z');
      expect(await env.events(subscription.id, 'SubscriptionTrialEndAnnounced')).toHaveLength(1);
      expect(await env.events(subscription.id, 'SubscriptionTrialEnded')).toHaveLength(1);
      expect(await env.notifications('subscription.trial_will_end')).toBe(1);
      const invoices = await env.invoices();
      expect(invoices.map((invoice) => [invoice.date, invoice.items[0].periodStart, invoice.items[0].periodEnd, invoice.totalExclVat])).toEqual([
        ['2026-03-15', '2026-03-15', '2026-04-14', 3100],
        ['2026-04-15', '2026-04-15', '2026-05-14', 3100],
      ]);
    });

    it('PUT end-trial ends it now: today becomes the anchor, billed at once; a second time is a 409', async () => {
      const env = environment();
      await env.advance('2026-03-10T10:00:00.000Z');
      const subscription = await env.subscribe([await env.price()], { term: { start: '2026-03-01', end: null }, trialEnd: '2026-03-31' });
      expect(subscription.status).toBe('trialing');
      const ended = await env.call('PUT', `/subscriptions/${subscription.id}/end-trial`, {}, 200);
      expect(ended.body).toMatchObject({
        status: 'active',
        trial: { start: '2026-03-01', end: '2026-03-10', endedAt: '2026-03-10T10:00:00.000Z' },
        items: [{ period: { start: '2026-03-10', end: '2026-04-09' } }],
      });
      await env.advance('2026-03-10T10:01:00.000Z');
      const invoices = await env.invoices();
      expect(invoices.map((invoice) => [invoice.date, invoice.items[0].periodStart, invoice.items[0].periodEnd, invoice.totalExclVat])).toEqual([
        ['2026-03-10', '2026-03-10', '2026-04-09', 3100],
      ]);
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/end-trial`, {}), 409, 'subscription-not-trialing');
      const noTrial = await env.subscribe([await env.price()], { term: { start: '2026-03-10', end: null } });
      expectProblem(await env.call('PUT', `/subscriptions/${noTrial.id}/end-trial`, {}), 409, 'subscription-not-trialing');
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/end-trial`, { now: true }), 422, 'validation-failed');
    });

    it('a trial that ends without a payment method: its first invoice is booked and left to the customer (no collection)', async () => {
      const env = environment();
      await env.advance('2026-01-01T00:00:00.000Z');
      await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_trials12345' } }, 200);
      const price = await env.price();
      const without = await env.subscribe([price], { trialDays: 3 });
      const withMethod = await env.subscribe([price], { trialDays: 5, paymentMethod: { provider: 'sandbox', token: 'tok_success' } });
      await env.advance('2026-01-04T00:00:00.000Z');
      await env.advance('2026-01-06T00:00:00.000Z');
      const [first, second] = await env.invoices();
      expect(first).toMatchObject({ date: '2026-01-04', status: 'booked', totalInclVat: 3100 });
      expect(second).toMatchObject({ date: '2026-01-06', status: 'booked', totalInclVat: 3100 });
      const collections = (invoiceId: string) =>
        t.dataSource.query(`select invoice_id from payment_collections where environment_id = $1 and invoice_id = $2`, [env.id, invoiceId]);
      // The collection reactor follows the log in order: once it has started the later invoice's collection, it has passed the earlier one.
      await eventually(
        () => collections(second.id),
        (rows) => rows.length === 1,
        { what: 'the collection of the invoice with a payment method' },
      );
      expect(await collections(first.id)).toEqual([]);
      expect((await env.call('GET', `/subscriptions/${without.id}`, undefined, 200)).body).toMatchObject({ status: 'active', paymentMethod: null });
      expect(withMethod.paymentMethod).toMatchObject({ provider: 'sandbox' });
    });

    it.each([
      ['both trialEnd and trialDays', { trialEnd: '2026-01-15', trialDays: 14 }, '/trialDays'],
      ['trialDays 0', { trialDays: 0 }, '/trialDays'],
      ['trialDays 731', { trialDays: 731 }, '/trialDays'],
      ['trialEnd on the term start', { trialEnd: '2026-01-01' }, '/trialEnd'],
      ['trialEnd past the first term', { term: { start: '2026-01-01', end: '2026-01-10' }, trialEnd: '2026-01-15' }, '/trialEnd'],
    ])('refuses %s (422)', async (_name, fields, pointer) => {
      const env = environment();
      const price = await env.price();
      const body = {
        customer: { id: randomUUID(), handle: 'C-1', name: 'Acme Oy' },
        currency: 'EUR',
        term: { start: '2026-01-01', end: null },
        items: [{ priceId: price }],
        ...fields,
      };
      expectProblem(await env.call('POST', '/subscriptions', body), 422, 'validation-failed', pointer);
    });
  });

  describe('issue 41 #5: trial_will_end whichever way the clock reaches its instant', () => {
    /** A 14-day trial from Mar 1 (UTC): the notice due at Mar 12 00:00, the end at Mar 15 00:00. */
    async function trial() {
      const env = environment();
      await env.advance('2026-03-01T08:00:00.000Z');
      await env.call('PUT', '/webhooks/subscribe', { url: 'https://example.com/hooks/trials' }, 200);
      const subscription = await env.subscribe([await env.price()], { term: { start: '2026-03-01', end: null }, trialDays: 14 });
      return { env, subscription };
    }

    it.each([
      ['exactly on the notice', '2026-03-12T00:00:00.000Z', ['SubscriptionTrialEndAnnounced']],
      ['exactly on the trial end', '2026-03-15T00:00:00.000Z', ['SubscriptionTrialEndAnnounced', 'SubscriptionTrialEnded']],
      ['past the trial end', '2026-03-16T00:00:00.000Z', ['SubscriptionTrialEndAnnounced', 'SubscriptionTrialEnded']],
    ])('an advance from before the notice landing %s records and notifies trial_will_end once, before the end', async (_, to, expected) => {
      const { env, subscription } = await trial();
      await env.advance(to);
      const rows = await t.dataSource.query(
        `select event_type, data from events where environment_id = $1 and stream_id = $2 and event_type like 'SubscriptionTrial%' order by global_position`,
        [env.id, subscription.id],
      );
      expect(rows.map((row: { event_type: string }) => row.event_type)).toEqual(expected);
      expect(rows[0].data).toEqual({ subscriptionId: subscription.id, trialEnd: '2026-03-15', announcedAt: to });
      await eventually(
        () => env.notifications('subscription.trial_will_end'),
        (n) => n === 1,
        { what: 'the trial_will_end notification' },
      );
      // Once, however far the clock goes.
      await env.advance('2026-04-20T00:00:00.000Z');
      expect(await env.events(subscription.id, 'SubscriptionTrialEndAnnounced')).toHaveLength(1);
      expect(await env.events(subscription.id, 'SubscriptionTrialEnded')).toHaveLength(1);
    });
  });

  describe('cancel now', () => {
    /** Jan 1: the advance item's January (31.00) is billed; the arrears item's January waits for its end. */
    async function january() {
      const env = environment();
      await env.advance('2026-01-01T00:00:00.000Z');
      const subscription = await env.subscribe([await env.price('advance'), await env.price('arrears')]);
      await env.advance('2026-01-01T00:01:00.000Z');
      expect((await env.invoices()).map((invoice) => invoice.totalExclVat)).toEqual([3100]);
      await env.advance('2026-01-10T10:00:00.000Z');
      return { env, subscription, path: `/subscriptions/${subscription.id}` };
    }

    it('with prorate: cancelAt today; a final invoice at once with the arrears used (Jan 1–10) and a credit for Jan 11–31; ended at midnight', async () => {
      const { env, subscription, path } = await january();
      const cancelled = await env.call('PUT', `${path}/cancel`, { at: 'now', prorate: true }, 202);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelAt: '2026-01-10' });
      const [, final] = await env.invoices();
      // By hand: arrears 3100 × 10 ÷ 31 = 1000 for Jan 1–10 (the rest shown as its discount); credit 3100 × 21 ÷ 31 = 2100 for Jan 11–31.
      expect(final.items.map((line: any) => [line.title, line.periodStart, line.periodEnd, line.quantity, line.unitAmount, line.amount])).toEqual([
        ['Pro arrears', '2026-01-01', '2026-01-10', 1, 3100, 1000],
        ['Unused time: Pro advance', '2026-01-11', '2026-01-31', 1, -2100, -2100],
      ]);
      // Net negative: an inline customer has no credit balance, so the invoice keeps its negative total (nothing to collect).
      expect(final).toMatchObject({ date: '2026-01-10', status: 'booked', totalExclVat: -1100, totalInclVat: -1100 });
      // Asked again: nothing new (service ends today already).
      expect((await env.call('PUT', `${path}/cancel`, { at: 'now', prorate: true }, 202)).body).toMatchObject({ cancelAt: '2026-01-10' });
      await env.advance('2026-01-11T00:00:00.000Z');
      expect((await env.call('GET', path, undefined, 200)).body).toMatchObject({ status: 'ended', endedAt: '2026-01-11T00:00:00.000Z' });
      await env.advance('2026-03-01T00:00:00.000Z');
      expect(await env.invoices()).toHaveLength(2);
      expect(await env.events(subscription.id, 'SubscriptionEnded')).toHaveLength(1);
    });

    it('issue 41 #4: with prorate, for a customer record: the final invoice’s −1100 goes to the balance once, which settles the invoice', async () => {
      const env = environment();
      const customer = (await env.call('POST', '/customers', { name: 'Acme Oy' }, 201)).body;
      await env.advance('2026-01-01T00:00:00.000Z');
      const subscription = await env.subscribe([await env.price('advance'), await env.price('arrears')], { customer: undefined, customerId: customer.id });
      await env.advance('2026-01-10T10:00:00.000Z');
      await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, { at: 'now', prorate: true }, 202);
      const final = (await env.invoices()).find((invoice) => invoice.date === '2026-01-10');
      expect(final).toMatchObject({ status: 'booked', totalInclVat: -1100, settlementStatus: 'settled', totalDue: 0, creditApplied: 0 });
      const ledger = (await env.call('GET', `/customers/${customer.id}/balance-transactions`, undefined, 200)).body.items;
      expect(ledger).toEqual([expect.objectContaining({ amount: -1100, kind: 'invoice_credit', invoiceId: final.id, balanceAfter: -1100 })]);
      expect((await env.call('GET', `/customers/${customer.id}`, undefined, 200)).body.balances).toEqual([{ currency: 'EUR', available: 1100 }]);
    });

    it('at the local midnight the engine just billed: the final invoice is one of its own; each amount rounded once', async () => {
      const { env, path } = await january();
      await env.advance('2026-02-01T00:00:00.000Z');
      // One invoice per billAt: February's advance and January's arrears.
      expect((await env.invoices()).map((invoice) => invoice.totalExclVat)).toEqual([3100, 6200]);
      expect((await env.call('PUT', `${path}/cancel`, { at: 'now', prorate: true }, 202)).body).toMatchObject({ cancelAt: '2026-02-01' });
      const final = (await env.invoices()).at(-1);
      // By hand: arrears Feb 1 = 3100 × 1 ÷ 28 = 110.71 → 111; credit Feb 2–28 = 3100 × 27 ÷ 28 = 2989.29 → 2989 (111 + 2989 = 3100).
      expect(final.items.map((line: any) => [line.periodStart, line.periodEnd, line.amount])).toEqual([
        ['2026-02-01', '2026-02-01', 111],
        ['2026-02-02', '2026-02-28', -2989],
      ]);
      expect(final).toMatchObject({ date: '2026-02-01', status: 'booked', totalInclVat: -2878 });
    });

    it('without prorate: the final arrears only, no credit', async () => {
      const { env, path } = await january();
      expect((await env.call('PUT', `${path}/cancel`, { at: 'now' }, 202)).body).toMatchObject({ status: 'cancelled', cancelAt: '2026-01-10' });
      const [, final] = await env.invoices();
      expect(final.items.map((line: any) => [line.periodStart, line.periodEnd, line.amount])).toEqual([['2026-01-01', '2026-01-10', 1000]]);
      expect(final).toMatchObject({ status: 'booked', totalInclVat: 1000 });
    });

    it('at the period end (no body, {} or {at: period_end}): unchanged — cancelAt Jan 31, nothing billed at once', async () => {
      const { env, path } = await january();
      expect((await env.call('PUT', `${path}/cancel`, undefined, 202)).body).toMatchObject({ status: 'cancelled', cancelAt: '2026-01-31' });
      expect((await env.call('PUT', `${path}/cancel`, {}, 202)).body).toMatchObject({ cancelAt: '2026-01-31' });
      expect((await env.call('PUT', `${path}/cancel`, { at: 'period_end' }, 202)).body).toMatchObject({ cancelAt: '2026-01-31' });
      expect(await env.invoices()).toHaveLength(1);
      await env.advance('2026-02-01T00:00:00.000Z');
      const invoices = await env.invoices();
      expect(invoices.map((invoice) => invoice.totalExclVat)).toEqual([3100, 3100]);
    });

    it.each([
      ['an unknown at', { at: 'tomorrow' }, '/at'],
      ['prorate not a boolean', { at: 'now', prorate: 'yes' }, '/prorate'],
      ['prorate without at: now', { prorate: true }, '/prorate'],
      ['an unknown property', { when: 'now' }, '/when'],
    ])('refuses %s (422)', async (_name, body, pointer) => {
      const { env, path } = await january();
      expectProblem(await env.call('PUT', `${path}/cancel`, body), 422, 'validation-failed', pointer);
      expect((await env.call('GET', path, undefined, 200)).body.status).toBe('active');
    });
  });

  it('another environment’s subscription is a 404 for end-trial and cancel now', async () => {
    const env = environment();
    const other = environment();
    await env.advance('2026-01-01T00:00:00.000Z');
    const subscription = await env.subscribe([await env.price()], { trialDays: 14 });
    expectProblem(await other.call('PUT', `/subscriptions/${subscription.id}/end-trial`, {}), 404, 'not-found');
    expectProblem(await other.call('PUT', `/subscriptions/${subscription.id}/cancel`, { at: 'now', prorate: true }), 404, 'not-found');
    expect((await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body.status).toBe('trialing');
  });
});
