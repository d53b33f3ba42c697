import { randomUUID } from 'node:crypto';
import { environmentCall, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/**
 * GET /subscriptions/{id}/upcoming-invoice over HTTP against real Postgres on
 * the environment's test clock: the preview taken before billAt equals, field
 * by field, the invoice the billing engine books at billAt (bar id, number
 * and timestamps), period after period, with usage, tax, a month-end anchor
 * and a DST change; nothing is written; errors and another environment.
 * Over 14 months with changes in between (an upgrade and quantity changes with
 * create_prorations, an arrears item's price changed, a downgrade scheduled at
 * the period's end, a pause with resumeAt, usage every month), every invoice
 * equals the preview taken after the last change before its billAt.
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
    const call = environmentCall(t, id);
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
      /** `count` events of the metric `calls` for the subscription, all at `timestamp`. */
      async usage(subscriptionId: string, count: number, timestamp: string) {
        const events = Array.from({ length: count }, () => ({ id: randomUUID(), subscriptionId, metricCode: 'calls', timestamp, properties: {} }));
        const answer = (await call('POST', '/usage-events', { events }, 200)).body;
        expect(answer.accepted).toBe(count);
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
      if (events > 0) await env.usage(subscription.id, events, new Date(Date.parse(now) - 3_600_000).toISOString());
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

  it('previews every invoice of 14 months exactly as booked while the subscription changes in between (America/New_York, Jan 31 anchor, changes, a pause)', async () => {
    const env = environment();
    await env.advance('2026-01-20T17:00:00.000Z');
    await env.call('POST', '/tax-codes', { code: 'VAT20', rate: 0.2, taxable: true }, 201);
    await env.call('POST', '/billable-metrics', { code: 'calls', name: 'API calls', aggregation: 'count' }, 201);
    const product = (await env.call('POST', '/products', { name: 'Team plan' }, 201)).body.id;
    const seat = await env.price(product, { name: 'Seat', pricing: { eur: { unitAmount: 3100 } } });
    const seatPlus = await env.price(product, { name: 'Seat Plus', pricing: { eur: { unitAmount: 6200 } } });
    const support = await env.price(product, { name: 'Support', billingTiming: 'arrears', pricing: { eur: { unitAmount: 1500 } } });
    const supportPlus = await env.price(product, { name: 'Support Plus', billingTiming: 'arrears', pricing: { eur: { unitAmount: 3000 } } });
    const calls = await env.price(product, { name: 'Calls', billingTiming: 'event_based', metricCode: 'calls', pricing: { eur: { unitAmount: 10 } } });
    const coupon = (await env.call('POST', '/coupons', { name: '10 % forever', percentOff: 10, duration: 'forever' }, 201)).body;
    const subscription = (
      await env.call(
        'POST',
        '/subscriptions',
        {
          customer: { id: randomUUID(), handle: 'C-14', name: 'Acme Inc.' },
          currency: 'EUR',
          timeZone: 'America/New_York',
          term: { start: '2026-01-31', end: null },
          items: [
            { priceId: seat, quantity: 2, taxCode: 'VAT20' },
            { priceId: support, taxCode: 'VAT20' },
            { priceId: calls, taxCode: 'VAT20' },
          ],
          discounts: [{ couponId: coupon.id }],
        },
        201,
      )
    ).body;
    const [seatItem, supportItem] = subscription.items.map((item: { id: string }) => item.id);
    const path = `/subscriptions/${subscription.id}`;
    const change = (body: Record<string, unknown>, expected: number) => env.call('POST', `${path}/changes`, body, expected);

    // What happens between the billing instants, at local midday (UTC−5, or UTC−4 from Mar 8 to Nov 1 2026 and from Mar 14 2027).
    const between: [string, () => Promise<unknown>][] = [
      ['2026-02-10T17:00:00.000Z', () => env.usage(subscription.id, 7, '2026-02-10T16:00:00.000Z')],
      ['2026-03-09T16:00:00.000Z', () => env.usage(subscription.id, 12, '2026-03-09T15:00:00.000Z')],
      ['2026-03-15T16:00:00.000Z', () => change({ items: [{ id: seatItem, priceId: seatPlus }], prorationBehavior: 'create_prorations' }, 200)],
      ['2026-04-20T16:00:00.000Z', () => change({ items: [{ id: seatItem, quantity: 3 }], prorationBehavior: 'create_prorations' }, 200)],
      ['2026-04-21T16:00:00.000Z', () => env.usage(subscription.id, 5, '2026-04-21T15:00:00.000Z')],
      ['2026-05-10T16:00:00.000Z', () => change({ items: [{ id: supportItem, priceId: supportPlus }], prorationBehavior: 'create_prorations' }, 200)],
      ['2026-05-11T16:00:00.000Z', () => env.usage(subscription.id, 30, '2026-05-11T15:00:00.000Z')],
      ['2026-06-15T16:00:00.000Z', () => change({ items: [{ id: seatItem, priceId: seat }], effective: 'period_end' }, 202)],
      ['2026-07-05T16:00:00.000Z', () => env.usage(subscription.id, 3, '2026-07-05T15:00:00.000Z')],
      ['2026-08-10T15:00:00.000Z', () => env.usage(subscription.id, 4, '2026-08-10T14:00:00.000Z')],
      ['2026-08-10T16:00:00.000Z', () => env.call('PUT', `${path}/pause`, { resumeAt: '2026-08-25' }, 200)],
      // Received while paused: accepted, never billed.
      ['2026-08-15T16:00:00.000Z', () => env.usage(subscription.id, 9, '2026-08-15T15:00:00.000Z')],
      ['2026-09-12T16:00:00.000Z', () => env.usage(subscription.id, 20, '2026-09-12T15:00:00.000Z')],
      ['2026-10-20T16:00:00.000Z', () => env.usage(subscription.id, 2, '2026-10-20T15:00:00.000Z')],
      ['2026-11-03T17:00:00.000Z', () => change({ items: [{ id: seatItem, quantity: 1 }], prorationBehavior: 'create_prorations' }, 200)],
      ['2026-11-04T17:00:00.000Z', () => env.usage(subscription.id, 6, '2026-11-04T16:00:00.000Z')],
      ['2026-12-24T17:00:00.000Z', () => env.usage(subscription.id, 11, '2026-12-24T16:00:00.000Z')],
      ['2027-01-15T17:00:00.000Z', () => change({ items: [{ id: seatItem, priceId: seatPlus, quantity: 4 }], prorationBehavior: 'create_prorations' }, 200)],
      ['2027-02-20T17:00:00.000Z', () => env.usage(subscription.id, 8, '2027-02-20T16:00:00.000Z')],
      ['2027-03-20T16:00:00.000Z', () => env.usage(subscription.id, 2, '2027-03-20T15:00:00.000Z')],
    ];
    const last = '2027-03-31T04:00:00.000Z';
    const billed: any[] = [];
    for (;;) {
      let preview = (await env.call('GET', `${path}/upcoming-invoice`, undefined, 200)).body;
      if (preview.billAt > last) break;
      while (between.length > 0 && between[0][0] < preview.billAt) {
        const [at, happen] = between.shift()!;
        await env.advance(at);
        await happen();
        preview = (await env.call('GET', `${path}/upcoming-invoice`, undefined, 200)).body;
      }
      // Nothing changes between this preview and its billAt: the engine books exactly it.
      await env.advance(preview.billAt);
      const invoices = await env.invoices();
      expect(invoices).toHaveLength(billed.length + 1);
      const invoice = invoices[billed.length];
      expect({ billAt: preview.billAt, invoice: asPreviewed(invoice) }).toEqual({ billAt: preview.billAt, invoice: withoutSubscriptionFields(preview) });
      billed.push({ billAt: preview.billAt, invoice });
    }
    expect(between).toEqual([]);
    // Local midnights: EST (05:00Z) until Mar 8 and from Nov 1, EDT (04:00Z) between; the pause's invoice (Aug 11) and the resume's (Aug 25).
    expect(billed.map(({ billAt }) => billAt)).toEqual([
      '2026-01-31T05:00:00.000Z',
      '2026-02-28T05:00:00.000Z',
      '2026-03-31T04:00:00.000Z',
      '2026-04-30T04:00:00.000Z',
      '2026-05-31T04:00:00.000Z',
      '2026-06-30T04:00:00.000Z',
      '2026-07-31T04:00:00.000Z',
      '2026-08-11T04:00:00.000Z',
      '2026-08-25T04:00:00.000Z',
      '2026-08-31T04:00:00.000Z',
      '2026-09-30T04:00:00.000Z',
      '2026-10-31T04:00:00.000Z',
      '2026-11-30T05:00:00.000Z',
      '2026-12-31T05:00:00.000Z',
      '2027-01-31T05:00:00.000Z',
      '2027-02-28T05:00:00.000Z',
      '2027-03-31T04:00:00.000Z',
    ]);
    // By hand, March 31 (the seat upgraded on Mar 15, 16 of the 31 days Feb 28 – Mar 30 left; coupon 10 % off the charges, never the
    // prorations; VAT 20 % per line, half away from zero):
    //   Seat Plus 2 × 6200 = 12400 − 1240 = 11160 (VAT 2232); Support Feb 28 – Mar 30 1500 − 150 = 1350 (270);
    //   Calls 12 × 10 = 120 − 12 = 108 (21.6 → 22); Unused time: Seat 6200 × 16 ÷ 31 = −3200 (−640);
    //   Remaining time: Seat Plus 12400 × 16 ÷ 31 = 6400 (1280). Total 15818 + VAT 3164 = 18982.
    // August 11, the first paused day (paused Aug 10, the period Jul 31 – Aug 30 has 31 days): Support Plus used Jul 31 – Aug 10,
    //   3000 × 11 ÷ 31 = 1064.52 → 1065, less 10 % = 958 (its discount 3000 − 958 = 2042); Calls 4 × 10 − 4 = 36; the seat's
    //   Aug 11 – 30 credited, 3 × 3100 × 20 ÷ 31 = −6000. August 25, the resume: 9300 × 6 ÷ 31 = 1800 less 10 % = 1620.
    const row = (line: any) => [
      line.title,
      line.periodStart,
      line.periodEnd,
      line.quantity,
      line.unitAmount,
      line.discount.amount,
      line.taxAmount,
      line.amount,
    ];
    const [march, pause, resume] = ['2026-03-31', '2026-08-11', '2026-08-25'].map((date) => billed.find(({ invoice }) => invoice.date === date).invoice);
    expect(march.items.map(row)).toEqual([
      ['Seat Plus', '2026-03-31', '2026-04-29', 2, 6200, 1240, 2232, 11160],
      ['Support', '2026-02-28', '2026-03-30', 1, 1500, 150, 270, 1350],
      ['Calls', '2026-02-28', '2026-03-30', 12, 10, 12, 22, 108],
      ['Unused time: Seat', '2026-03-15', '2026-03-30', 1, -3200, 0, -640, -3200],
      ['Remaining time: Seat Plus', '2026-03-15', '2026-03-30', 1, 6400, 0, 1280, 6400],
    ]);
    expect([march.totalExclVat, march.totalVat, march.totalInclVat]).toEqual([15818, 3164, 18982]);
    expect(pause.items.map(row)).toEqual([
      ['Support Plus', '2026-07-31', '2026-08-10', 1, 3000, 2042, 192, 958],
      ['Calls', '2026-07-31', '2026-08-10', 4, 10, 4, 7, 36],
      ['Unused time: Seat', '2026-08-11', '2026-08-30', 1, -6000, 0, -1200, -6000],
    ]);
    expect(resume.items.map(row)).toEqual([['Seat', '2026-08-25', '2026-08-30', 3, 3100, 7680, 324, 1620]]);
    // The 9 calls sent while paused were never billed: the usage billed adds up to every call sent but those.
    const callsBilled = billed.flatMap(({ invoice }) => invoice.items.filter((line: any) => line.title === 'Calls').map((line: any) => line.quantity));
    expect(callsBilled.reduce((sum: number, quantity: number) => sum + quantity, 0)).toBe(7 + 12 + 5 + 30 + 3 + 4 + 20 + 2 + 6 + 11 + 8 + 2);
    // Some 60 advances and 200 requests: a budget above the default 30 s for a loaded 2-core machine (a budget, not a measurement).
  }, 120_000);

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
