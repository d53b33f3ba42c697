import { randomUUID } from 'node:crypto';
import { environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/**
 * Changing a subscription's items (issue 23 §1, §5 changes preview) over HTTP against real Postgres on the
 * environment's test clock. UTC, from 2026-01-01, monthly prices of 31.00 EUR (Pro) and 62.00 EUR
 * (Premium): January has 31 days, so a day of Pro is exactly 100 cents and every amount can be checked by
 * hand. Upgrades mid-month each way of proration, a downgrade at the period's end, quantity 1 → 5 → 2 in
 * one period, changes on the billing instant, a Jan 31 anchor changed on Feb 28, preview = the invoice
 * booked, DELETE of a scheduled change, every 422, 409 ended, another environment's 404.
 */
describe('Subscriptions: changing items', () => {
  const clock = new FakeClock(new Date('2026-01-01T00:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  function environment() {
    const id = randomUUID();
    const call = environmentCall(t, id);
    let productId: string | undefined;
    return {
      id,
      call,
      /** A monthly price of the one product (Pro: 3100, Premium: 6200). */
      async price(name: string, unitAmount: number, billingTiming: 'advance' | 'arrears' = 'advance', fields: Record<string, unknown> = {}): Promise<string> {
        productId ??= (await call('POST', '/products', { name: 'Plan' }, 201)).body.id;
        const body = { priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit: 'month', billingTiming, productId, name, ...fields };
        return (await call('POST', '/prices', { ...body, pricing: { eur: { unitAmount } } }, 201)).body.id;
      },
      async subscribe(items: { priceId: string; quantity?: number }[], fields: Record<string, unknown> = {}) {
        const body = {
          customer: { id: randomUUID(), handle: 'C-1', name: 'Acme Oy' },
          currency: 'EUR',
          term: { start: '2026-01-01', end: null },
          items,
          ...fields,
        };
        return (await call('POST', '/subscriptions', body, 201)).body;
      },
      change(subscriptionId: string, body: Record<string, unknown>, expected?: number) {
        return call('POST', `/subscriptions/${subscriptionId}/changes`, body, expected);
      },
      async advance(to: string) {
        return call('POST', '/test-clock/advance', { to }, 200);
      },
      async upcoming(subscriptionId: string) {
        return (await call('GET', `/subscriptions/${subscriptionId}/upcoming-invoice`, undefined, 200)).body;
      },
      async invoices(): Promise<any[]> {
        const page = await call('GET', '/invoices?limit=100', undefined, 200);
        const details = await Promise.all(page.body.items.map((item: { id: string }) => call('GET', `/invoices/${item.id}`, undefined, 200)));
        return details.map((d) => d.body).sort((a, b) => (a.handle < b.handle ? -1 : 1));
      },
      async notifications(type: string): Promise<any[]> {
        return t.dataSource.query(`select data from webhook_notifications where environment_id = $1 and type = $2`, [id, type]);
      },
    };
  }

  /** An invoice's lines as [title, periodStart, periodEnd, amount]. */
  const lines = (invoice: any) => invoice.items.map((line: any) => [line.title, line.periodStart, line.periodEnd, line.amount]);

  /** A booked invoice as a preview shows it: everything but id, number, status, settlements and timestamps; lines without their ids. */
  function asPreviewed(invoice: any) {
    const { date, dueDate, currency, memo, customer, totalExclVat, totalVat, totalInclVat } = invoice;
    return { date, dueDate, currency, memo, customer, items: invoice.items.map(({ id: _id, ...line }: any) => line), totalExclVat, totalVat, totalInclVat };
  }
  const previewed = ({ subscriptionId: _s, billAt: _b, usage: _u, ...invoice }: any) => invoice;

  /** Pro bought on Jan 1 (January billed, 3100), the clock at Jan 20 10:00 with Premium in the catalog. */
  async function upgradeSetup() {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const premium = await env.price('Premium', 6200);
    const subscription = await env.subscribe([{ priceId: pro }]);
    await env.advance('2026-01-20T10:00:00.000Z');
    return { env, pro, premium, subscription, itemId: subscription.items[0].id as string };
  }

  describe('an upgrade on Jan 20 (12 of January’s 31 days left: Jan 20 – 31)', () => {
    it('create_prorations: credit 3100 × 12 ÷ 31 = 1200 and charge 6200 × 12 ÷ 31 = 2400 wait for Feb 1, as previewed', async () => {
      const { env, premium, subscription, itemId } = await upgradeSetup();
      await env.call('PUT', '/webhooks/subscribe', { url: 'https://example.com/hooks/changes' }, 200);
      const body = { items: [{ id: itemId, priceId: premium }], effective: 'now', prorationBehavior: 'create_prorations' };
      const preview = (await env.call('POST', `/subscriptions/${subscription.id}/changes/preview`, body, 200)).body;
      expect(preview.immediateInvoice).toBeNull();
      const changed = (await env.change(subscription.id, body, 200)).body;
      expect(changed.items).toEqual([expect.objectContaining({ id: itemId, price: { id: premium, name: 'Premium' }, quantity: 1 })]);
      expect(changed.latestChange).toMatchObject({ date: '2026-01-20', prorationBehavior: 'create_prorations', items: [{ action: 'update', itemId }] });
      expect(changed.pendingChanges).toEqual([]);
      // Nothing is booked now.
      expect(await env.invoices()).toHaveLength(1);
      const upcoming = await env.upcoming(subscription.id);
      expect(upcoming).toEqual(preview.upcomingInvoice);
      expect(lines(upcoming)).toEqual([
        ['Premium', '2026-02-01', '2026-02-28', 6200],
        ['Unused time: Pro', '2026-01-20', '2026-01-31', -1200],
        ['Remaining time: Premium', '2026-01-20', '2026-01-31', 2400],
      ]);
      // 6200 + 2400 − 1200 = 7400.
      expect(upcoming.totalExclVat).toBe(7400);
      await env.advance('2026-02-01T00:00:00.000Z');
      const invoices = await env.invoices();
      expect(invoices).toHaveLength(2);
      expect(asPreviewed(invoices[1])).toEqual(previewed(upcoming));
      // Billed once: March has only Premium.
      expect(lines(await env.upcoming(subscription.id))).toEqual([['Premium', '2026-03-01', '2026-03-31', 6200]]);
      await eventually(
        () => env.notifications('subscription.updated'),
        (found) => found.length === 1,
        { what: 'the subscription.updated notification' },
      );
      const [notification] = await env.notifications('subscription.updated');
      expect(notification.data.latestChange).toMatchObject({
        prorationBehavior: 'create_prorations',
        items: [{ action: 'update', itemId, price: { id: premium } }],
      });
    });

    it('always_invoice: an invoice of 2400 − 1200 = 1200 booked at once, as previewed; February bills Premium alone', async () => {
      const { env, premium, subscription, itemId } = await upgradeSetup();
      const body = { items: [{ id: itemId, priceId: premium }], prorationBehavior: 'always_invoice' };
      const preview = (await env.call('POST', `/subscriptions/${subscription.id}/changes/preview`, body, 200)).body;
      expect(lines(preview.immediateInvoice)).toEqual([
        ['Unused time: Pro', '2026-01-20', '2026-01-31', -1200],
        ['Remaining time: Premium', '2026-01-20', '2026-01-31', 2400],
      ]);
      await env.change(subscription.id, body, 200);
      const invoices = await env.invoices();
      expect(invoices).toHaveLength(2);
      expect(invoices[1]).toMatchObject({ status: 'booked', date: '2026-01-20', totalExclVat: 1200 });
      expect(asPreviewed(invoices[1])).toEqual(previewed(preview.immediateInvoice));
      const upcoming = await env.upcoming(subscription.id);
      expect(upcoming).toEqual(preview.upcomingInvoice);
      expect(lines(upcoming)).toEqual([['Premium', '2026-02-01', '2026-02-28', 6200]]);
    });

    it('always_invoice of a net credit without a customer record: nothing booked now, the lines wait for the next invoice', async () => {
      const env = environment();
      const pro = await env.price('Pro', 3100);
      const premium = await env.price('Premium', 6200);
      const subscription = await env.subscribe([{ priceId: premium }]);
      await env.advance('2026-01-20T10:00:00.000Z');
      const body = { items: [{ id: subscription.items[0].id, priceId: pro }], prorationBehavior: 'always_invoice' };
      const preview = (await env.call('POST', `/subscriptions/${subscription.id}/changes/preview`, body, 200)).body;
      expect(preview.immediateInvoice).toBeNull();
      await env.change(subscription.id, body, 200);
      expect(await env.invoices()).toHaveLength(1);
      // Feb 1: 3100 − 2400 + 1200 = 1900.
      expect(lines(await env.upcoming(subscription.id))).toEqual([
        ['Pro', '2026-02-01', '2026-02-28', 3100],
        ['Unused time: Premium', '2026-01-20', '2026-01-31', -2400],
        ['Remaining time: Pro', '2026-01-20', '2026-01-31', 1200],
      ]);
    });

    it('issue 41 #4: always_invoice of a net credit with a customer record: an invoice of −1200 booked at once and settled by moving the credit to the customer’s balance, taken once by Feb 1', async () => {
      const env = environment();
      const pro = await env.price('Pro', 3100);
      const premium = await env.price('Premium', 6200);
      const customer = (await env.call('POST', '/customers', { name: 'Acme Oy' }, 201)).body;
      const subscription = await env.subscribe([{ priceId: premium }], { customer: undefined, customerId: customer.id });
      await env.advance('2026-01-20T10:00:00.000Z');
      const body = { items: [{ id: subscription.items[0].id, priceId: pro }], prorationBehavior: 'always_invoice' };
      const preview = (await env.call('POST', `/subscriptions/${subscription.id}/changes/preview`, body, 200)).body;
      await env.change(subscription.id, body, 200);
      const invoices = await env.invoices();
      // 1200 − 2400 = −1200.
      expect(invoices[1]).toMatchObject({ status: 'booked', date: '2026-01-20', totalInclVat: -1200 });
      expect(asPreviewed(invoices[1])).toEqual(previewed(preview.immediateInvoice));
      const ledger = async () => (await env.call('GET', `/customers/${customer.id}/balance-transactions?limit=100`, undefined, 200)).body.items;
      const [entry] = await ledger();
      expect(await ledger()).toEqual([
        expect.objectContaining({
          amount: -1200,
          currency: 'EUR',
          kind: 'invoice_credit',
          invoiceId: invoices[1].id,
          description: `Credit of invoice ${invoices[1].handle}`,
        }),
      ]);
      // The credit shows once: on the balance, and the invoice is settled by that move (nothing due either way).
      expect(invoices[1]).toMatchObject({
        settlementStatus: 'settled',
        totalDue: 0,
        creditApplied: 0,
        settlements: [{ date: '2026-01-20', amount: -1200, reference: entry.id, note: 'Credited to the customer balance' }],
      });
      // Feb 1 bills Pro alone (3100); booking takes the 1200 of credit.
      expect(lines(await env.upcoming(subscription.id))).toEqual([['Pro', '2026-02-01', '2026-02-28', 3100]]);
      await env.advance('2026-02-01T00:00:00.000Z');
      expect((await ledger()).map((entry: any) => [entry.kind, entry.amount]).sort()).toEqual([
        ['invoice_applied', 1200],
        ['invoice_credit', -1200],
      ]);
      const february = (await env.invoices()).find((invoice: any) => invoice.date === '2026-02-01');
      expect(february).toMatchObject({ totalInclVat: 3100, creditApplied: 1200, totalDue: 1900 });
      expect((await env.call('GET', `/customers/${customer.id}`, undefined, 200)).body.balances).toEqual([{ currency: 'EUR', available: 0 }]);
    });

    it('none: nothing prorated; Premium from February', async () => {
      const { env, premium, subscription, itemId } = await upgradeSetup();
      const body = { items: [{ id: itemId, priceId: premium }], prorationBehavior: 'none' };
      const preview = (await env.call('POST', `/subscriptions/${subscription.id}/changes/preview`, body, 200)).body;
      await env.change(subscription.id, body, 200);
      expect(await env.invoices()).toHaveLength(1);
      const upcoming = await env.upcoming(subscription.id);
      expect(upcoming).toEqual(preview.upcomingInvoice);
      expect(lines(upcoming)).toEqual([['Premium', '2026-02-01', '2026-02-28', 6200]]);
    });
  });

  it('quantity 1 → 5 → 2 in January: Feb 1 bills 6200 and 5200 of prorations (Jan: 9 days × 100 + 10 × 500 + 12 × 200 = 8300, 3100 billed)', async () => {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const subscription = await env.subscribe([{ priceId: pro }]);
    const itemId = subscription.items[0].id;
    // Jan 10: 22 days left; credit 3100 × 22 ÷ 31 = 2200, charge 15500 × 22 ÷ 31 = 11000.
    await env.advance('2026-01-10T09:00:00.000Z');
    await env.change(subscription.id, { items: [{ id: itemId, quantity: 5 }] }, 200);
    // Jan 20: 12 days left; credit 15500 × 12 ÷ 31 = 6000, charge 6200 × 12 ÷ 31 = 2400.
    await env.advance('2026-01-20T09:00:00.000Z');
    const changed = (await env.change(subscription.id, { items: [{ id: itemId, quantity: 2 }] }, 200)).body;
    expect(changed.items[0].quantity).toBe(2);
    const upcoming = await env.upcoming(subscription.id);
    expect(lines(upcoming)).toEqual([
      ['Pro', '2026-02-01', '2026-02-28', 6200],
      ['Unused time: Pro', '2026-01-10', '2026-01-31', -2200],
      ['Remaining time: Pro', '2026-01-10', '2026-01-31', 11000],
      ['Unused time: Pro', '2026-01-20', '2026-01-31', -6000],
      ['Remaining time: Pro', '2026-01-20', '2026-01-31', 2400],
    ]);
    // 3100 + 5200 = 8300, what January used; 6200 for February.
    expect(upcoming.totalExclVat).toBe(11400);
    await env.advance('2026-02-01T00:00:00.000Z');
    const invoices = await env.invoices();
    expect(asPreviewed(invoices[1])).toEqual(previewed(upcoming));
  });

  it('discounts with a change: redeemed with it, from its first day; they discount the charge lines, never the proration lines', async () => {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const subscription = await env.subscribe([{ priceId: pro }]);
    const coupon = (await env.call('POST', '/coupons', { name: '20 % forever', percentOff: 20, duration: 'forever' }, 201)).body;
    await env.advance('2026-01-20T10:00:00.000Z');
    const changed = (await env.change(subscription.id, { items: [{ id: subscription.items[0].id, quantity: 2 }], discounts: [{ couponId: coupon.id }] }, 200))
      .body;
    expect(changed.discounts).toEqual([expect.objectContaining({ couponId: coupon.id, start: '2026-01-20', end: null })]);
    const upcoming = await env.upcoming(subscription.id);
    // Feb: 6200 less 20 % = 4960; Jan 20 – 31: −1200 + 2400, undiscounted.
    expect(upcoming.items.map((line: any) => [line.title, line.amount, line.discount?.amount ?? 0])).toEqual([
      ['Pro', 4960, 1240],
      ['Unused time: Pro', -1200, 0],
      ['Remaining time: Pro', 2400, 0],
    ]);
  });

  it('a downgrade at the period’s end: 202 with the change, shown in pendingChanges, applied on Feb 1 before its billing (Pro 3100, no proration)', async () => {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const premium = await env.price('Premium', 6200);
    const subscription = await env.subscribe([{ priceId: premium }]);
    const itemId = subscription.items[0].id;
    await env.advance('2026-01-20T10:00:00.000Z');
    const body = { items: [{ id: itemId, priceId: pro }], effective: 'period_end' };
    const preview = (await env.call('POST', `/subscriptions/${subscription.id}/changes/preview`, body, 200)).body;
    const scheduled = await env.change(subscription.id, body, 202);
    expect(scheduled.body).toMatchObject({
      date: '2026-02-01',
      effectiveAt: '2026-02-01T00:00:00.000Z',
      prorationBehavior: 'create_prorations',
      items: [{ action: 'update', itemId, price: { id: pro, name: 'Pro' }, quantity: 1 }],
    });
    const shown = (await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body;
    expect(shown.pendingChanges).toEqual([scheduled.body]);
    expect(shown.items[0].price.id).toBe(premium);
    const upcoming = await env.upcoming(subscription.id);
    expect(upcoming).toEqual(preview.upcomingInvoice);
    expect(lines(upcoming)).toEqual([['Pro', '2026-02-01', '2026-02-28', 3100]]);
    // Another change waits for this one.
    expectProblem(await env.change(subscription.id, { items: [{ id: itemId, quantity: 2 }] }), 409, 'subscription-change-pending');
    await env.advance('2026-02-01T00:00:00.000Z');
    const invoices = await env.invoices();
    expect(invoices.map(lines)).toEqual([[['Premium', '2026-01-01', '2026-01-31', 6200]], [['Pro', '2026-02-01', '2026-02-28', 3100]]]);
    expect(asPreviewed(invoices[1])).toEqual(previewed(upcoming));
    const after = (await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body;
    expect(after).toMatchObject({ pendingChanges: [], latestChange: { id: scheduled.body.id }, items: [{ price: { id: pro } }] });
  });

  it('DELETE a scheduled change: it does not apply; unknown or dropped: 404', async () => {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const premium = await env.price('Premium', 6200);
    const subscription = await env.subscribe([{ priceId: pro }]);
    const scheduled = (await env.change(subscription.id, { items: [{ id: subscription.items[0].id, priceId: premium }], effective: '2026-01-15' }, 202)).body;
    const path = `/subscriptions/${subscription.id}/changes/${scheduled.id}`;
    const dropped = (await env.call('DELETE', path, undefined, 200)).body;
    expect(dropped.pendingChanges).toEqual([]);
    expectProblem(await env.call('DELETE', path), 404, 'not-found');
    expectProblem(await env.call('DELETE', `/subscriptions/${subscription.id}/changes/${randomUUID()}`), 404, 'not-found');
    await env.advance('2026-02-01T00:00:00.000Z');
    expect((await env.invoices()).map(lines)).toEqual([[['Pro', '2026-01-01', '2026-01-31', 3100]], [['Pro', '2026-02-01', '2026-02-28', 3100]]]);
  });

  describe('a change on the billing instant, billed exactly once', () => {
    it('scheduled for Feb 1: applied before Feb 1’s billing, which bills Premium alone (nothing of January is left to prorate)', async () => {
      const env = environment();
      const pro = await env.price('Pro', 3100);
      const premium = await env.price('Premium', 6200);
      const subscription = await env.subscribe([{ priceId: pro }]);
      await env.change(subscription.id, { items: [{ id: subscription.items[0].id, priceId: premium }], effective: '2026-02-01' }, 202);
      await env.advance('2026-02-01T00:00:00.000Z');
      expect((await env.invoices()).map(lines)).toEqual([[['Pro', '2026-01-01', '2026-01-31', 3100]], [['Premium', '2026-02-01', '2026-02-28', 6200]]]);
      expect(lines(await env.upcoming(subscription.id))).toEqual([['Premium', '2026-03-01', '2026-03-31', 6200]]);
    });

    it('now, at Feb 1 00:00 after the engine billed February: all of February credited (3100) and charged (6200), on March’s invoice', async () => {
      const env = environment();
      const pro = await env.price('Pro', 3100);
      const premium = await env.price('Premium', 6200);
      const subscription = await env.subscribe([{ priceId: pro }]);
      await env.advance('2026-02-01T00:00:00.000Z');
      await env.change(subscription.id, { items: [{ id: subscription.items[0].id, priceId: premium }] }, 200);
      expect(lines(await env.upcoming(subscription.id))).toEqual([
        ['Premium', '2026-03-01', '2026-03-31', 6200],
        ['Unused time: Pro', '2026-02-01', '2026-02-28', -3100],
        ['Remaining time: Premium', '2026-02-01', '2026-02-28', 6200],
      ]);
      await env.advance('2026-03-01T00:00:00.000Z');
      const invoices = await env.invoices();
      expect(invoices.map((invoice) => invoice.totalExclVat)).toEqual([3100, 3100, 9300]);
    });
  });

  it('a Jan 31 anchor changed on Feb 28: the period Feb 28 – Mar 30 (31 days) is credited and charged whole; Mar 31 bills Premium', async () => {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const premium = await env.price('Premium', 6200);
    await env.advance('2026-01-31T00:00:00.000Z');
    const subscription = await env.subscribe([{ priceId: pro }], { term: { start: '2026-01-31', end: null } });
    await env.advance('2026-02-28T12:00:00.000Z');
    await env.change(subscription.id, { items: [{ id: subscription.items[0].id, priceId: premium }] }, 200);
    // Billed on Feb 28 for Feb 28 – Mar 30: credit 3100 × 31 ÷ 31 = 3100, charge 6200 × 31 ÷ 31 = 6200.
    const upcoming = await env.upcoming(subscription.id);
    expect(lines(upcoming)).toEqual([
      ['Premium', '2026-03-31', '2026-04-29', 6200],
      ['Unused time: Pro', '2026-02-28', '2026-03-30', -3100],
      ['Remaining time: Premium', '2026-02-28', '2026-03-30', 6200],
    ]);
    await env.advance('2026-03-31T00:00:00.000Z');
    const invoices = await env.invoices();
    expect(invoices.map((invoice) => [invoice.date, invoice.totalExclVat])).toEqual([
      ['2026-01-31', 3100],
      ['2026-02-28', 3100],
      ['2026-03-31', 9300],
    ]);
    expect(asPreviewed(invoices[2])).toEqual(previewed(upcoming));
  });

  it('adding an arrears item and deleting an advance one on Jan 20: the deleted item’s 12 days credited, the added one billed from Jan 20 at its end', async () => {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const support = await env.price('Support', 3100, 'arrears');
    const extra = await env.price('Extra', 3100);
    const subscription = await env.subscribe([{ priceId: pro }, { priceId: extra }]);
    await env.advance('2026-01-20T10:00:00.000Z');
    await env.change(subscription.id, { items: [{ id: subscription.items[1].id, delete: true }, { priceId: support }] }, 200);
    // Feb 1: Pro 3100, Support Jan 20 – 31 = 3100 × 12 ÷ 31 = 1200 (arrears), Extra's credit −1200.
    expect(lines(await env.upcoming(subscription.id))).toEqual([
      ['Pro', '2026-02-01', '2026-02-28', 3100],
      ['Support', '2026-01-20', '2026-01-31', 1200],
      ['Unused time: Extra', '2026-01-20', '2026-01-31', -1200],
    ]);
  });

  it('every 422, at its pointer', async () => {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const usd = await env.call('POST', '/prices', {
      priceModel: 'fee',
      purchase: 'recurring',
      termCount: 1,
      termUnit: 'month',
      billingTiming: 'advance',
      productId: (await env.call('POST', '/products', { name: 'Other' }, 201)).body.id,
      name: 'USD only',
      pricing: { usd: { unitAmount: 100 } },
    });
    const yearly = await env.price('Yearly', 31000, 'advance', { termUnit: 'year' });
    const subscription = await env.subscribe([{ priceId: pro }]);
    const itemId = subscription.items[0].id;
    const invalidOn =
      (subscriptionId: string) =>
      async (body: unknown, pointer: string, paths = ['changes', 'changes/preview']): Promise<string[]> => {
        const details: string[] = [];
        for (const path of paths) {
          const response = await env.call('POST', `/subscriptions/${subscriptionId}/${path}`, body);
          expect({ body, status: response.status }).toEqual({ body, status: 422 });
          expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
          details.push(...response.body.errors.map((error: { detail: string }) => error.detail));
        }
        return details;
      };
    const invalid = invalidOn(subscription.id);
    await invalid({ items: [] }, '/items');
    await invalid({}, '/items');
    await invalid({ items: [{ id: randomUUID(), quantity: 2 }] }, '/items/0/id');
    await invalid({ items: [{ quantity: 2 }] }, '/items/0/priceId');
    await invalid({ items: [{ priceId: randomUUID() }] }, '/items/0/priceId');
    await invalid({ items: [{ priceId: usd.body.id }] }, '/items/0/priceId');
    await invalid({ items: [{ id: itemId, priceId: yearly }] }, '/items/0/priceId');
    await invalid({ items: [{ id: itemId, quantity: 0 }] }, '/items/0/quantity');
    await invalid({ items: [{ id: itemId, quantity: 1.00001 }] }, '/items/0/quantity');
    await invalid({ items: [{ id: itemId, quantity: 'two' }] }, '/items/0/quantity');
    await invalid({ items: [{ id: itemId, delete: true, quantity: 2 }] }, '/items/0/delete');
    await invalid({ items: [{ priceId: pro, delete: true }] }, '/items/0/delete');
    await invalid({ items: [{ id: itemId }] }, '/items/0');
    await invalid({ items: [{ id: itemId, quantity: 1 }] }, '/items/0');
    await invalid(
      {
        items: [
          { id: itemId, quantity: 2 },
          { id: itemId, quantity: 3 },
        ],
      },
      '/items/1/id',
    );
    await invalid({ items: [{ id: itemId, delete: true }] }, '/items');
    await invalid({ items: [{ id: itemId, quantity: 2 }], effective: 'tomorrow' }, '/effective');
    await invalid({ items: [{ id: itemId, quantity: 2 }], effective: '2026-01-01' }, '/effective');
    await invalid({ items: [{ id: itemId, quantity: 2 }], prorationBehavior: 'sometimes' }, '/prorationBehavior');
    await invalid({ items: [{ id: itemId, quantity: 2 }], unknown: true }, '/unknown');
    await invalid({ items: [{ id: itemId, quantity: 2 }], discounts: [{ couponId: randomUUID() }] }, '/discounts/0/couponId', ['changes']);
    // Usage-based (event_based) items are neither changed nor deleted by a change, and a change adds no usage-based price.
    await env.call('POST', '/billable-metrics', { code: 'calls', name: 'API calls', aggregation: 'count' }, 201);
    const calls = await env.price('Calls', 10, 'advance', { billingTiming: 'event_based', metricCode: 'calls' });
    const metered = await env.subscribe([{ priceId: pro }, { priceId: calls }]);
    const [seatItem, usageItem] = metered.items.map((item: { id: string }) => item.id);
    const usageBased = expect.stringContaining('usage-based (event_based)');
    const invalidMetered = invalidOn(metered.id);
    expect(await invalidMetered({ items: [{ id: usageItem, quantity: 2 }] }, '/items/0/id')).toEqual([usageBased, usageBased]);
    expect(await invalidMetered({ items: [{ id: usageItem, priceId: calls }] }, '/items/0/id')).toEqual([usageBased, usageBased]);
    expect(await invalidMetered({ items: [{ id: usageItem, delete: true }] }, '/items/0/id')).toEqual([usageBased, usageBased]);
    expect(await invalidMetered({ items: [{ priceId: calls }] }, '/items/0/priceId')).toEqual([usageBased, usageBased]);
    expect(await invalidMetered({ items: [{ id: seatItem, priceId: calls }] }, '/items/0/priceId')).toEqual([usageBased, usageBased]);
    expect(await invalid({ items: [{ priceId: calls }] }, '/items/0/priceId')).toEqual([usageBased, usageBased]);
    // A subscription cancelled at the period's end: no change after its last day.
    await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202);
    await invalid({ items: [{ id: itemId, quantity: 2 }], effective: 'period_end' }, '/effective');
  });

  it('409 once ended; another environment’s subscription is a 404', async () => {
    const env = environment();
    const pro = await env.price('Pro', 3100);
    const subscription = await env.subscribe([{ priceId: pro }]);
    const body = { items: [{ id: subscription.items[0].id, quantity: 2 }] };
    await env.advance('2026-01-05T10:00:00.000Z');
    const other = environment();
    for (const path of ['changes', 'changes/preview'])
      expectProblem(await other.call('POST', `/subscriptions/${subscription.id}/${path}`, body), 404, 'not-found');
    expectProblem(await other.call('DELETE', `/subscriptions/${subscription.id}/changes/${randomUUID()}`), 404, 'not-found');
    await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, { at: 'now' }, 202);
    await env.advance('2026-01-06T00:00:00.000Z');
    for (const path of ['changes', 'changes/preview']) {
      expectProblem(await env.call('POST', `/subscriptions/${subscription.id}/${path}`, body), 409, 'subscription-ended');
    }
  });
});
