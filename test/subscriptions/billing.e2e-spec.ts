import { randomUUID } from 'node:crypto';
import { CommandBus } from '@nestjs/cqrs';
import { BookInvoiceCommand } from '@billing/invoicing';
import { ConflictError } from '@billing/shared-kernel';
import { environmentCall, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/**
 * The billing engine over HTTP against real Postgres, driven by the
 * environment's test clock: invoices from subscriptions at the right
 * instants, with the right periods and amounts, exactly once.
 */
describe('Subscriptions: the billing engine on a test clock', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  /** A fresh environment per test: its own clock, catalog and invoice numbers. */
  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = environmentCall(t, id);
    return {
      id,
      options,
      call,
      async product(name = 'Pro plan'): Promise<string> {
        return (await call('POST', '/products', { name }, 201)).body.id;
      },
      async price(productId: string, fields: Record<string, unknown>): Promise<string> {
        const body = {
          name: 'Monthly',
          priceModel: 'fee',
          pricing: { eur: { unitAmount: 3000 } },
          purchase: 'recurring',
          termCount: 1,
          termUnit: 'month',
          billingTiming: 'advance',
          productId,
          ...fields,
        };
        return (await call('POST', '/prices', body, 201)).body.id;
      },
      async subscribe(fields: Record<string, unknown>) {
        const body = { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme Oy' }, currency: 'EUR', ...fields };
        return (await call('POST', '/subscriptions', body, 201)).body;
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

  it('bills a Jan 31 monthly subscription (one advance, one arrears item) through 14 months: anchor day kept, arrears grouped with the next advance', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const product = await env.product('Pro plan');
    const advance = await env.price(product, { name: 'Seat', pricing: { eur: { unitAmount: 3000 } } });
    const arrears = await env.price(product, { name: 'Support', billingTiming: 'arrears', pricing: { eur: { unitAmount: 1000 } } });
    const subscription = await env.subscribe({ term: { start: '2026-01-31', end: null }, items: [{ priceId: advance, quantity: 2 }, { priceId: arrears }] });
    expect(subscription).toMatchObject({ status: 'active', currency: 'EUR', timeZone: 'UTC', term: { start: '2026-01-31', end: null }, autoRenewal: false });
    expect(subscription.items[0]).toMatchObject({ billAt: '2026-01-31T00:00:00.000Z', period: { start: '2026-01-31', end: '2026-02-27' }, quantity: 2 });
    expect(subscription.items[1]).toMatchObject({ billAt: '2026-02-28T00:00:00.000Z', period: { start: '2026-01-31', end: '2026-02-27' }, quantity: 1 });
    expect(await env.invoices()).toEqual([]);

    await env.advance('2027-03-31T00:00:00.000Z');
    const invoices = await env.invoices();
    const starts = [
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
      '2026-07-31',
      '2026-08-31',
      '2026-09-30',
      '2026-10-31',
      '2026-11-30',
      '2026-12-31',
      '2027-01-31',
      '2027-02-28',
      '2027-03-31',
    ];
    expect(invoices).toHaveLength(15);
    invoices.forEach((invoice, index) => {
      expect(invoice).toMatchObject({
        handle: `INV-${String(index + 1).padStart(6, '0')}`,
        status: 'booked',
        date: starts[index],
        currency: 'EUR',
        customer: { name: 'Acme Oy' },
      });
      const periodEnd = (start: string) => {
        const next = starts[starts.indexOf(start) + 1];
        return next ? new Date(Date.parse(`${next}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10) : '2027-04-29';
      };
      const seat = invoice.items.find((line: any) => line.title === 'Seat');
      expect(seat).toMatchObject({
        description: 'Pro plan',
        periodStart: starts[index],
        periodEnd: periodEnd(starts[index]),
        quantity: 2,
        unitAmount: 3000,
        amount: 6000,
      });
      const support = invoice.items.find((line: any) => line.title === 'Support');
      if (index === 0) expect(support).toBeUndefined();
      else expect(support).toMatchObject({ periodStart: starts[index - 1], periodEnd: periodEnd(starts[index - 1]), quantity: 1, amount: 1000 });
      expect(invoice.totalExclVat).toBe(index === 0 ? 6000 : 7000);
    });
    const after = (await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body;
    expect(after.items[0]).toMatchObject({ billAt: '2027-04-30T00:00:00.000Z', period: { start: '2027-03-31', end: '2027-04-29' } });
    expect(after.items[1]).toMatchObject({ billAt: '2027-04-30T00:00:00.000Z', period: { start: '2027-03-31', end: '2027-04-29' } });

    // Advancing again to the same instant bills nothing twice.
    await env.advance('2027-03-31T00:00:00.000Z');
    expect(await env.invoices()).toHaveLength(15);
  });

  it("bills at midnight in the subscription's time zone across a DST change (Europe/Helsinki)", async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), {});
    const subscription = await env.subscribe({ timeZone: 'Europe/Helsinki', term: { start: '2026-03-01', end: null }, items: [{ priceId: price }] });
    // Winter: UTC+2; summer (from 29 March 2026): UTC+3.
    expect(subscription.items[0].billAt).toBe('2026-02-28T22:00:00.000Z');
    await env.advance('2026-03-31T20:59:59.000Z');
    expect((await env.invoices()).map((i) => i.date)).toEqual(['2026-03-01']);
    await env.advance('2026-03-31T21:00:00.000Z');
    expect((await env.invoices()).map((i) => i.date)).toEqual(['2026-03-01', '2026-04-01']);
    expect((await env.call('GET', `/subscriptions/${subscription.id}`)).body.items[0].billAt).toBe('2026-04-30T21:00:00.000Z');
  });

  it('cancels at the end of the current period: the final arrears period is billed, then the subscription ends', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const product = await env.product();
    const monthly = await env.price(product, { name: 'Seat' });
    const usage = await env.price(product, { name: 'Support', billingTiming: 'arrears', pricing: { eur: { unitAmount: 3100 } } });
    const subscription = await env.subscribe({ term: { start: '2026-02-01', end: null }, items: [{ priceId: monthly }, { priceId: usage }] });
    await env.advance('2026-03-10T08:00:00.000Z');
    const cancelled = await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelAt: '2026-03-31' });
    // Cancelling again answers the same.
    expect((await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202)).body.cancelAt).toBe('2026-03-31');
    await env.advance('2026-04-01T00:00:00.000Z');
    const invoices = await env.invoices();
    expect(invoices.map((i) => i.date)).toEqual(['2026-02-01', '2026-03-01', '2026-04-01']);
    expect(invoices[2].items).toHaveLength(1);
    expect(invoices[2].items[0]).toMatchObject({ title: 'Support', periodStart: '2026-03-01', periodEnd: '2026-03-31', amount: 3100 });
    const ended = (await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body;
    expect(ended).toMatchObject({ status: 'ended', endedAt: '2026-04-01T00:00:00.000Z' });
    expect(ended.items.every((item: any) => item.billAt === null)).toBe(true);
    expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}), 409, 'subscription-ended');
    expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {}), 409, 'subscription-ended');
    await env.advance('2026-08-01T00:00:00.000Z');
    expect(await env.invoices()).toHaveLength(3);
  });

  it('cancelling cuts a shorter period at cancelAt: its final arrears piece is charged pro rata', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const product = await env.product();
    const monthly = await env.price(product, { name: 'Seat' });
    const weekly = await env.price(product, { name: 'Support', termUnit: 'week', billingTiming: 'arrears', pricing: { eur: { unitAmount: 700 } } });
    const subscription = await env.subscribe({ term: { start: '2026-03-01', end: null }, items: [{ priceId: monthly }, { priceId: weekly }] });
    await env.advance('2026-03-10T08:00:00.000Z');
    // The monthly period ends on 31 March, later than the weekly one (8–14 March): that is cancelAt.
    expect((await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202)).body.cancelAt).toBe('2026-03-31');
    await env.advance('2026-04-01T00:00:00.000Z');
    const invoices = await env.invoices();
    const last = invoices[invoices.length - 1];
    expect(last.date).toBe('2026-04-01');
    // The week 29 March – 4 April is cut at 31 March: 3 of 7 days of 700 = 300.
    expect(last.items).toEqual([expect.objectContaining({ title: 'Support', periodStart: '2026-03-29', periodEnd: '2026-03-31', quantity: 1, amount: 300 })]);
    expect((await env.call('GET', `/subscriptions/${subscription.id}`)).body).toMatchObject({ status: 'ended', endedAt: '2026-04-01T00:00:00.000Z' });
  });

  it('reactivates a cancelled subscription before cancelAt: billing goes on', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), {});
    const subscription = await env.subscribe({ term: { start: '2026-02-01', end: null }, items: [{ priceId: price }] });
    expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {}), 409, 'subscription-not-cancelled');
    await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202);
    const reactivated = await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {}, 200);
    expect(reactivated.body).toMatchObject({ status: 'active', cancelAt: null });
    await env.advance('2026-04-01T00:00:00.000Z');
    expect((await env.invoices()).map((i) => i.date)).toEqual(['2026-02-01', '2026-03-01', '2026-04-01']);
  });

  it('renews a termed subscription with autoRenewal for the same length, anchor day kept', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), {});
    const subscription = await env.subscribe({ term: { start: '2026-01-31', end: '2026-04-29' }, autoRenewal: true, items: [{ priceId: price }] });
    await env.advance('2026-05-01T00:00:00.000Z');
    const renewed = (await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body;
    expect(renewed).toMatchObject({ status: 'active', term: { start: '2026-04-30', end: '2026-07-30' } });
    expect((await env.invoices()).map((i) => i.date)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
  });

  it('ends a termed subscription without autoRenewal; a term ending mid-period shortens and pro-rates the last period', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const product = await env.product();
    const advance = await env.price(product, { name: 'Seat', pricing: { eur: { unitAmount: 3100 } } });
    const arrears = await env.price(product, { name: 'Support', billingTiming: 'arrears', pricing: { eur: { unitAmount: 3100 } } });
    const subscription = await env.subscribe({ term: { start: '2026-03-01', end: '2026-04-10' }, items: [{ priceId: advance }, { priceId: arrears }] });
    await env.advance('2026-06-01T00:00:00.000Z');
    const invoices = await env.invoices();
    expect(invoices.map((i) => i.date)).toEqual(['2026-03-01', '2026-04-01', '2026-04-11']);
    // April: 10 of 30 days: 3100 × 10 / 30 = 1033.33… → 1033.
    expect(invoices[1].items.find((l: any) => l.title === 'Seat')).toMatchObject({
      periodStart: '2026-04-01',
      periodEnd: '2026-04-10',
      quantity: 1,
      amount: 1033,
    });
    expect(invoices[2].items).toEqual([expect.objectContaining({ title: 'Support', periodStart: '2026-04-01', periodEnd: '2026-04-10', amount: 1033 })]);
    expect((await env.call('GET', `/subscriptions/${subscription.id}`)).body).toMatchObject({ status: 'ended', endedAt: '2026-04-11T00:00:00.000Z' });
  });

  it('uses the pricing as of the billing moment; a booked invoice never changes when the price changes later', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), { pricing: { eur: { unitAmount: 1000 } } });
    await env.subscribe({ term: { start: '2026-02-01', end: null }, items: [{ priceId: price }] });
    await env.advance('2026-02-01T00:00:00.000Z');
    await env.call('PUT', `/prices/${price}`, { pricing: { eur: { unitAmount: 2000 } } }, 200);
    await env.advance('2026-03-01T00:00:00.000Z');
    const invoices = await env.invoices();
    expect(invoices.map((i) => i.totalExclVat)).toEqual([1000, 2000]);
  });

  it('records a billing failure on the subscription and retries it, without stopping the others', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const product = await env.product();
    const fragile = await env.price(product, { pricing: { eur: { unitAmount: 1000 }, usd: { unitAmount: 1100 } } });
    const sound = await env.price(product, {});
    const failing = await env.subscribe({ term: { start: '2026-02-01', end: null }, items: [{ priceId: fragile }] });
    const fine = await env.subscribe({ term: { start: '2026-02-01', end: null }, items: [{ priceId: sound }] });
    // The price loses its EUR pricing before the first billing.
    await env.call('PUT', `/prices/${fragile}`, { pricing: { usd: { unitAmount: 1100 } } }, 200);
    await env.advance('2026-02-01T00:00:00.000Z');
    const failed = (await env.call('GET', `/subscriptions/${failing.id}`)).body;
    expect(failed.billingFailure).toMatchObject({ billAt: '2026-02-01T00:00:00.000Z', attempts: 1, retryAt: '2026-02-01T00:01:00.000Z' });
    expect(failed.billingFailure.reason).toContain('no pricing in EUR');
    expect((await env.invoices()).map((i) => i.totalExclVat)).toEqual([3000]);
    void fine;
    // Fixed, and retried once the retry time has come.
    await env.call('PUT', `/prices/${fragile}`, { pricing: { eur: { unitAmount: 1000 } } }, 200);
    await env.advance('2026-02-01T00:05:00.000Z');
    expect((await env.call('GET', `/subscriptions/${failing.id}`)).body.billingFailure).toBeNull();
    expect((await env.invoices()).map((i) => i.totalExclVat).sort()).toEqual([1000, 3000]);
  });

  it('a booking that fails at the end of a batch: the batch runs again without it, the others are booked with gapless numbers, it is retried once', async () => {
    const env = environment();
    await env.advance('2026-01-20T12:00:00.000Z');
    const price = await env.price(await env.product(), {});
    const subscriptions = [];
    for (let i = 0; i < 4; i++) subscriptions.push(await env.subscribe({ term: { start: '2026-02-01', end: null }, items: [{ priceId: price }] }));
    // The engine books a batch's invoices at its end; the first booking of this environment fails (as a rule of invoicing would).
    const bus = t.app.get(CommandBus);
    const execute = bus.execute.bind(bus);
    let failedInvoice: string | null = null;
    jest.spyOn(bus, 'execute').mockImplementation(async (command: unknown) => {
      if (command instanceof BookInvoiceCommand && command.environmentId === env.id && failedInvoice === null) {
        failedInvoice = command.invoiceId;
        throw new ConflictError('injected-booking-failure', 'a booking refused by the test');
      }
      return execute(command as never);
    });
    try {
      await env.advance('2026-02-01T00:00:00.000Z');
    } finally {
      jest.restoreAllMocks();
    }
    const booked = await env.invoices();
    expect(booked.map((invoice) => invoice.handle)).toEqual(['INV-000001', 'INV-000002', 'INV-000003']);
    expect(booked.map((invoice) => invoice.id)).not.toContain(failedInvoice);
    const views = await Promise.all(subscriptions.map(async ({ id }) => (await env.call('GET', `/subscriptions/${id}`, undefined, 200)).body));
    const failures = views.filter((view) => view.billingFailure !== null);
    expect(failures).toHaveLength(1);
    expect(failures[0].billingFailure).toMatchObject({ billAt: '2026-02-01T00:00:00.000Z', attempts: 1, retryAt: '2026-02-01T00:01:00.000Z' });
    expect(failures[0].billingFailure.reason).toContain('a booking refused by the test');

    // The retry books it once, with the next number; nothing is billed twice.
    await env.advance('2026-02-01T00:05:00.000Z');
    const all = await env.invoices();
    expect(all.map((invoice) => invoice.handle)).toEqual(['INV-000001', 'INV-000002', 'INV-000003', 'INV-000004']);
    expect(all.map((invoice) => invoice.id)).toContain(failedInvoice);
    expect((await env.call('GET', `/subscriptions/${failures[0].id}`, undefined, 200)).body.billingFailure).toBeNull();
  });
});
