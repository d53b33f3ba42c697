import { randomUUID } from 'node:crypto';
import { environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/**
 * Usage-based billing over HTTP against real Postgres on the environment's
 * test clock: metrics, ingestion (exactly once), usage lines on the arrears
 * invoices the billing engine makes, price changes, cancellation, the grace
 * period for late events, and every route's errors.
 */
describe('Usage-based billing', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = environmentCall(t, id);
    return {
      id,
      options,
      call,
      async metric(code: string, aggregation: string, field?: string) {
        return (await call('POST', '/billable-metrics', { code, name: `Metric ${code}`, aggregation, ...(field ? { field } : {}) }, 201)).body;
      },
      async usagePrice(metricCode: string, fields: Record<string, unknown> = {}): Promise<string> {
        const productId = (await call('POST', '/products', { name: 'Usage plan' }, 201)).body.id;
        const body = {
          name: 'Usage',
          priceModel: 'fee',
          pricing: { eur: { unitAmount: 100 } },
          purchase: 'recurring',
          termCount: 1,
          termUnit: 'month',
          billingTiming: 'event_based',
          metricCode,
          productId,
          ...fields,
        };
        return (await call('POST', '/prices', body, 201)).body.id;
      },
      async subscribe(priceId: string, fields: Record<string, unknown> = {}) {
        const body = { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme Oy' }, currency: 'EUR', items: [{ priceId }], ...fields };
        return (await call('POST', '/subscriptions', body, 201)).body;
      },
      async advance(to: string) {
        return call('POST', '/test-clock/advance', { to }, 200);
      },
      async send(events: Record<string, unknown>[]) {
        return (await call('POST', '/usage-events', { events }, 200)).body;
      },
      async invoices(): Promise<any[]> {
        const page = await call('GET', '/invoices?limit=100', undefined, 200);
        const details = await Promise.all(page.body.items.map((item: { id: string }) => call('GET', `/invoices/${item.id}`, undefined, 200)));
        return details.map((d) => d.body).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
      },
    };
  }
  type Env = ReturnType<typeof environment>;
  const event = (subscriptionId: string, metricCode: string, timestamp: string, properties: Record<string, unknown> = {}, id: string = randomUUID()) => ({
    id,
    subscriptionId,
    metricCode,
    timestamp,
    properties,
  });

  describe('billable metrics', () => {
    it('creates, lists and gets metrics; refuses invalid bodies, taken codes, unknown codes and other environments', async () => {
      const env = environment();
      const created = await env.call('POST', '/billable-metrics', { code: 'api_calls', name: 'API calls', aggregation: 'count' });
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toBe('/billable-metrics/api_calls');
      expect(created.body).toEqual({
        id: expect.any(String),
        code: 'api_calls',
        name: 'API calls',
        aggregation: 'count',
        field: null,
        createdAt: expect.any(String),
      });
      await env.metric('storage', 'max', 'gb');
      await env.metric('seats', 'unique_count', 'user');
      const page = await env.call('GET', '/billable-metrics?limit=2', undefined, 200);
      expect(page.body.items.map((m: { code: string }) => m.code)).toEqual(['api_calls', 'seats']);
      const next = await env.call('GET', `/billable-metrics?pageToken=${encodeURIComponent(page.body.nextPageToken)}`, undefined, 200);
      expect(next.body).toEqual({ items: [expect.objectContaining({ code: 'storage', aggregation: 'max', field: 'gb' })], nextPageToken: null });
      expect((await env.call('GET', '/billable-metrics/storage', undefined, 200)).body).toMatchObject({ code: 'storage', field: 'gb' });

      expectProblem(await env.call('POST', '/billable-metrics', { code: 'api_calls', name: 'again', aggregation: 'count' }), 409, 'billable-metric-exists');
      expectProblem(await env.call('POST', '/billable-metrics', { code: 'x', name: 'Sum', aggregation: 'sum' }), 422, 'validation-failed', '/field');
      expectProblem(
        await env.call('POST', '/billable-metrics', { code: 'y', name: 'Count', aggregation: 'count', field: 'n' }),
        422,
        'validation-failed',
        '/field',
      );
      expectProblem(
        await env.call('POST', '/billable-metrics', { code: 'has space', name: 'N', aggregation: 'average' }),
        422,
        'validation-failed',
        '/aggregation',
      );
      expectProblem(await env.call('POST', '/billable-metrics', { code: 'z', name: '', aggregation: 'count', extra: 1 }), 422, 'validation-failed', '/extra');
      expectProblem(await env.call('GET', '/billable-metrics/unknown'), 404, 'not-found');
      expectProblem(await env.call('GET', '/billable-metrics?limit=0'), 422, 'validation-failed', '/query/limit');

      const other = environment();
      expectProblem(await other.call('GET', '/billable-metrics/api_calls'), 404, 'not-found');
      expect((await other.call('GET', '/billable-metrics', undefined, 200)).body.items).toEqual([]);
      const forbidden = await t.request('GET', '/billable-metrics', { environment: env.id, token: t.token([other.id]) });
      expectProblem(forbidden, 403, 'forbidden-environment');
      expectProblem(
        await t.request('POST', '/usage-events', { environment: env.id, token: t.token([other.id]), body: { events: [] } }),
        403,
        'forbidden-environment',
      );
    });

    it('event_based prices name a metric of the environment', async () => {
      const env = environment();
      const base = { name: 'Usage', priceModel: 'fee', pricing: { eur: { unitAmount: 1 } }, purchase: 'recurring', termCount: 1, termUnit: 'month' };
      expectProblem(await env.call('POST', '/prices', { ...base, billingTiming: 'event_based' }), 422, 'validation-failed', '/metricCode');
      expectProblem(await env.call('POST', '/prices', { ...base, billingTiming: 'arrears', metricCode: 'calls' }), 422, 'validation-failed', '/metricCode');
      expectProblem(
        await env.call('POST', '/prices', {
          ...base,
          purchase: 'one_time',
          termCount: undefined,
          termUnit: undefined,
          billingTiming: 'event_based',
          metricCode: 'calls',
        }),
        422,
        'validation-failed',
        '/billingTiming',
      );
      expectProblem(await env.call('POST', '/prices', { ...base, billingTiming: 'event_based', metricCode: 'calls' }), 422, 'validation-failed', '/metricCode');
      await env.metric('calls', 'count');
      const priceId = await env.usagePrice('calls');
      expect((await env.call('GET', `/prices/${priceId}`, undefined, 200)).body).toMatchObject({ billingTiming: 'event_based', metricCode: 'calls' });
      const subscription = await env.subscribe(priceId, { term: { start: '2026-02-01' } });
      expect(subscription.items[0]).toMatchObject({ billAt: '2026-03-01T00:00:00.000Z', period: { start: '2026-02-01', end: '2026-02-28' } });
    });
  });

  describe('ingestion', () => {
    async function setUp(env: Env) {
      await env.advance('2026-03-10T12:00:00.000Z');
      await env.metric('calls', 'count');
      await env.metric('gb', 'sum', 'gb');
      await env.metric('users', 'unique_count', 'user');
      const calls = await env.usagePrice('calls');
      const gb = await env.usagePrice('gb');
      const users = await env.usagePrice('users');
      const customerId = randomUUID();
      const subscription = await env.subscribe(calls, {
        customer: { id: customerId, handle: null, name: 'C' },
        term: { start: '2026-03-01' },
        items: [{ priceId: calls }, { priceId: gb }, { priceId: users }],
      });
      return { subscription, customerId, calls };
    }

    it('accepts, counts duplicates once, and rejects each bad event with its index and reason', async () => {
      const env = environment();
      const { subscription, customerId, calls } = await setUp(env);
      const other = await env.subscribe(calls, { customer: { id: randomUUID(), handle: null, name: 'D' }, term: { start: '2026-03-01' } });
      await env.metric('unbilled', 'count');
      const id = randomUUID();
      const first = event(subscription.id, 'calls', '2026-03-10T11:00:00Z', {}, id);
      const result = await env.send([
        first,
        { ...first },
        event(subscription.id, 'nope', '2026-03-10T11:00:00Z'),
        event(randomUUID(), 'calls', '2026-03-10T11:00:00Z'),
        event(other.id, 'unbilled', '2026-03-10T11:00:00Z'),
        event(subscription.id, 'calls', '2026-02-03T11:00:00Z'),
        event(subscription.id, 'calls', '2026-03-10T12:06:00Z'),
        event(subscription.id, 'gb', '2026-03-10T11:00:00Z', {}),
        event(subscription.id, 'gb', '2026-03-10T11:00:00Z', { gb: 2.5 }),
        { id: randomUUID(), customerId, metricCode: 'users', timestamp: '2026-03-10T12:04:00+00:00', properties: { user: 'ann' } },
        { ...first, timestamp: '2026-03-10T11:00:01Z' },
        event(subscription.id, 'calls', '2026-02-28T23:59:59Z'),
      ]);
      expect(result.results.map((r: any) => r.reason ?? r.status)).toEqual([
        'accepted',
        'duplicate',
        'unknown-metric',
        'unknown-subscription',
        'metric-not-on-subscription',
        'timestamp-too-old',
        'timestamp-in-future',
        'invalid-property',
        'accepted',
        'accepted',
        'event-id-reused',
        'outside-service',
      ]);
      expect(result).toMatchObject({ accepted: 3, duplicates: 1, rejected: 8 });
      expect(result.results[9]).toMatchObject({ index: 9, subscriptionId: subscription.id });

      // Sent again in a later batch: the same id is a duplicate, whenever it comes.
      await env.advance('2026-03-25T00:00:00.000Z');
      expect((await env.send([first])).results[0]).toMatchObject({ status: 'duplicate', subscriptionId: subscription.id });
      const usage = await env.call('GET', `/subscriptions/${subscription.id}/usage`, undefined, 200);
      expect(usage.body.items.map((item: any) => [item.metricCode, item.quantity, item.amount])).toEqual([
        ['calls', 1, 100],
        ['gb', 2.5, 250],
        ['users', 1, 100],
      ]);
      expect(usage.body.items[0]).toMatchObject({ from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z', currency: 'EUR' });

      // A customer with two subscriptions billing the metric is ambiguous.
      await env.subscribe(calls, { customer: { id: customerId, handle: null, name: 'C' }, term: { start: '2026-03-01' } });
      const ambiguous = await env.send([{ id: randomUUID(), customerId, metricCode: 'calls', timestamp: '2026-03-24T00:00:00Z' }]);
      expect(ambiguous.results[0]).toMatchObject({ status: 'rejected', reason: 'ambiguous-customer' });
      const unknownCustomer = await env.send([{ id: randomUUID(), customerId: 'nobody', metricCode: 'calls', timestamp: '2026-03-24T00:00:00Z' }]);
      expect(unknownCustomer.results[0]).toMatchObject({ status: 'rejected', reason: 'unknown-subscription' });
    });

    it('answers a malformed batch with 422 and records nothing', async () => {
      const env = environment();
      const { subscription } = await setUp(env);
      const good = event(subscription.id, 'calls', '2026-03-10T11:00:00Z');
      expectProblem(await env.call('POST', '/usage-events', { events: [] }), 422, 'validation-failed', '/events');
      expectProblem(await env.call('POST', '/usage-events', [good]), 422, 'validation-failed');
      expectProblem(await env.call('POST', '/usage-events', { events: Array.from({ length: 1001 }, () => good) }), 422, 'validation-failed', '/events');
      expectProblem(
        await env.call('POST', '/usage-events', { events: [good, { ...good, id: randomUUID(), timestamp: '2026-03-10' }] }),
        422,
        'validation-failed',
        '/events/1/timestamp',
      );
      expectProblem(await env.call('POST', '/usage-events', { events: [{ ...good, customerId: 'x' }] }), 422, 'validation-failed', '/events/0/subscriptionId');
      expectProblem(await env.call('POST', '/usage-events', { events: [{ ...good, id: '' }] }), 422, 'validation-failed', '/events/0/id');
      expectProblem(await env.call('POST', '/usage-events', { events: [{ ...good, properties: [] }] }), 422, 'validation-failed', '/events/0/properties');
      expectProblem(await env.call('POST', '/usage-events', { events: [{ ...good, extra: true }] }), 422, 'validation-failed', '/events/0/extra');
      const usage = await env.call('GET', `/subscriptions/${subscription.id}/usage?metricCode=calls`, undefined, 200);
      expect(usage.body.items).toEqual([expect.objectContaining({ metricCode: 'calls', quantity: 0, amount: 0 })]);
    });

    it("issue 20 #18: refuses sum/max values outside 0 to 10^9 with at most 4 decimals, or not written canonically, with a 422 at the event's index; records nothing", async () => {
      const env = environment();
      const { subscription } = await setUp(env);
      const gb = (value: unknown) => event(subscription.id, 'gb', '2026-03-10T11:00:00Z', { gb: value });
      const refused = [1e308, 2 ** 53 + 1, '9'.repeat(10_000), ' 1', '1 ', '01', '+1', '1e3', '1.', '.5', -1, '1.23456', 1_000_000_000.5, true, { n: 1 }];
      const response = await env.call('POST', '/usage-events', { events: [gb(2.5), ...refused.map(gb), gb('1000000000')] });
      expectProblem(response, 422, 'validation-failed');
      expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(refused.map((_, index) => `/events/${index + 1}/properties/gb`));
      expect(response.body.errors[0].detail).toBe(
        'must be a number from 0 to 1000000000 with at most 4 decimals (a JSON number or a plain decimal string such as "12.5")',
      );
      const usage = await env.call('GET', `/subscriptions/${subscription.id}/usage?metricCode=gb`, undefined, 200);
      expect(usage.body.items).toEqual([expect.objectContaining({ metricCode: 'gb', quantity: 0, amount: 0 })]);
      // The edges of the range are accepted, as numbers and as decimal strings.
      const accepted = await env.send([gb(0), gb('0.0001'), gb(1_000_000_000), gb('999999999.9999')]);
      expect(accepted).toMatchObject({ accepted: 4, rejected: 0 });
      const after = await env.call('GET', `/subscriptions/${subscription.id}/usage?metricCode=gb`, undefined, 200);
      expect(after.body.items[0].quantity).toBe(2_000_000_000);
    });

    it('counts one event id sent 1 000 times across concurrent requests exactly once', async () => {
      const env = environment();
      const { subscription } = await setUp(env);
      const once = event(subscription.id, 'calls', '2026-03-10T11:00:00Z');
      const answers = await Promise.all(Array.from({ length: 50 }, () => env.send(Array.from({ length: 20 }, () => once))));
      const sum = (key: 'accepted' | 'duplicates' | 'rejected') => answers.reduce((total, answer) => total + answer[key], 0);
      expect({ accepted: sum('accepted'), duplicates: sum('duplicates'), rejected: sum('rejected') }).toEqual({ accepted: 1, duplicates: 999, rejected: 0 });
      const usage = await env.call('GET', `/subscriptions/${subscription.id}/usage?metricCode=calls`, undefined, 200);
      expect(usage.body.items[0]).toMatchObject({ quantity: 1, amount: 100 });
    });

    it('with an Idempotency-Key a batch is answered once and replayed byte for byte', async () => {
      const env = environment();
      const { subscription } = await setUp(env);
      const body = { events: [event(subscription.id, 'calls', '2026-03-10T11:00:00Z'), event(subscription.id, 'nope', '2026-03-10T11:00:00Z')] };
      const send = () => t.request('POST', '/usage-events', { ...env.options, body, headers: { 'idempotency-key': 'batch-1' } });
      const first = await send();
      const replay = await send();
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ accepted: 1, duplicates: 0, rejected: 1 });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(first.text);
    });

    it('GET /subscriptions/{id}/usage: ranges and errors', async () => {
      const env = environment();
      const { subscription } = await setUp(env);
      await env.send([event(subscription.id, 'calls', '2026-03-02T00:00:00Z'), event(subscription.id, 'calls', '2026-03-09T00:00:00Z')]);
      const ranged = await env.call(
        'GET',
        `/subscriptions/${subscription.id}/usage?metricCode=calls&from=2026-03-05T00:00:00Z&to=2026-03-10T00:00:00Z`,
        undefined,
        200,
      );
      expect(ranged.body.items).toEqual([
        expect.objectContaining({ quantity: 1, amount: 100, from: '2026-03-05T00:00:00.000Z', to: '2026-03-10T00:00:00.000Z' }),
      ]);
      expectProblem(await env.call('GET', `/subscriptions/${subscription.id}/usage?metricCode=other`), 422, 'validation-failed', '/query/metricCode');
      expectProblem(await env.call('GET', `/subscriptions/${subscription.id}/usage?from=yesterday`), 422, 'validation-failed', '/query/from');
      expectProblem(
        await env.call('GET', `/subscriptions/${subscription.id}/usage?from=2026-03-10T00:00:00Z&to=2026-03-05T00:00:00Z`),
        422,
        'validation-failed',
        '/query/to',
      );
      expectProblem(await env.call('GET', `/subscriptions/${subscription.id}/usage?limit=1`), 422, 'validation-failed', '/query/limit');
      expectProblem(await env.call('GET', `/subscriptions/${randomUUID()}/usage`), 404, 'not-found');
      expectProblem(await env.call('GET', `/subscriptions/not-a-uuid/usage`), 404, 'not-found');
      const other = environment();
      expectProblem(await other.call('GET', `/subscriptions/${subscription.id}/usage`), 404, 'not-found');
      expectProblem(
        await t.request('GET', `/subscriptions/${subscription.id}/usage`, { environment: env.id, token: t.token([other.id]) }),
        403,
        'forbidden-environment',
      );
    });

    it('issue 20 #18: a usage event is cancelled by id while its period is open (also on a draft in its grace period), never once booked; 404 for an unknown id or another environment', async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.call('PUT', '/usage-settings', { usageGracePeriodHours: 24 }, 200);
      await env.metric('calls', 'count');
      const subscription = await env.subscribe(await env.usagePrice('calls'), { term: { start: '2026-03-01' } });
      await env.advance('2026-03-10T12:00:00.000Z');
      const [first, second, third] = [1, 2, 3].map(() => event(subscription.id, 'calls', '2026-03-10T11:00:00Z'));
      await env.send([first, second, third]);
      const cancel = (id: string, as = env) => as.call('POST', `/usage-events/${encodeURIComponent(id)}/cancel`, {});

      const cancelled = await cancel(second.id);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toEqual({
        id: second.id,
        subscriptionId: subscription.id,
        metricCode: 'calls',
        timestamp: '2026-03-10T11:00:00.000Z',
        properties: {},
        cancelledAt: '2026-03-10T12:00:00.000Z',
      });
      // Again: the same cancellation; the event counts no more, and sending it again is still a duplicate (it is not counted again).
      expect((await cancel(second.id)).body).toEqual(cancelled.body);
      expect((await env.send([second])).results[0]).toMatchObject({ status: 'duplicate' });
      expect((await env.call('GET', `/subscriptions/${subscription.id}/usage`, undefined, 200)).body.items[0]).toMatchObject({ quantity: 2, amount: 200 });
      const log = await env.call('GET', `/events?limit=100`, undefined, 200);
      expect(log.body.items.filter((e: any) => e.type === 'UsageEventCancelled').map((e: any) => e.data)).toEqual([
        {
          subscriptionId: subscription.id,
          eventId: second.id,
          metricCode: 'calls',
          timestamp: '2026-03-10T11:00:00.000Z',
          cancelledAt: '2026-03-10T12:00:00.000Z',
        },
      ]);

      expectProblem(await cancel('no-such-event'), 404, 'not-found');
      expectProblem(await cancel(first.id, environment()), 404, 'not-found');
      expectProblem(await env.call('POST', `/usage-events/${first.id}/cancel`, { reason: 'x' }), 422, 'validation-failed', '/reason');

      // The period ends: a draft during the grace period, re-rated when it is booked.
      await env.advance('2026-04-01T06:00:00.000Z');
      expect((await env.invoices())[0]).toMatchObject({ status: 'draft', totalExclVat: 200 });
      expect((await cancel(third.id)).status).toBe(200);
      await env.advance('2026-04-02T06:00:00.000Z');
      expect((await env.invoices())[0]).toMatchObject({ status: 'booked', totalExclVat: 100 });
      // Booked: the period is closed.
      expectProblem(await cancel(first.id), 409, 'usage-event-billed');
    });

    it('usage settings: default 0, set, validated, per environment', async () => {
      const env = environment();
      expect((await env.call('GET', '/usage-settings', undefined, 200)).body).toEqual({ usageGracePeriodHours: 0, updatedAt: null });
      expect((await env.call('PUT', '/usage-settings', { usageGracePeriodHours: 48 }, 200)).body).toMatchObject({ usageGracePeriodHours: 48 });
      expectProblem(await env.call('PUT', '/usage-settings', { usageGracePeriodHours: 1.5 }), 422, 'validation-failed', '/usageGracePeriodHours');
      expectProblem(await env.call('PUT', '/usage-settings', { usageGracePeriodHours: 721 }), 422, 'validation-failed', '/usageGracePeriodHours');
      expectProblem(await env.call('PUT', '/usage-settings', { other: 1, usageGracePeriodHours: 1 }), 422, 'validation-failed', '/other');
      expect((await environment().call('GET', '/usage-settings', undefined, 200)).body.usageGracePeriodHours).toBe(0);
      expectProblem(await t.request('GET', '/usage-settings', { environment: env.id, token: t.token([randomUUID()]) }), 403, 'forbidden-environment');
    });
  });

  describe('billing', () => {
    it('bills 14 months of daily usage in arrears, one usage line per period, amounts as an independent oracle computes them', async () => {
      const env = environment();
      await env.advance('2026-01-30T12:00:00.000Z');
      await env.metric('storage', 'sum', 'gb');
      // Graduated: the first 100 GB at 10 cents, the rest at 4 cents.
      const priceId = await env.usagePrice('storage', {
        priceModel: 'graduated',
        pricing: {
          eur: {
            tiers: [
              { upTo: 100, unitAmount: 10 },
              { upTo: null, unitAmount: 4 },
            ],
          },
        },
      });
      const subscription = await env.subscribe(priceId, { term: { start: '2026-01-31' } });
      const DAY = 86_400_000;
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const valueOn = (date: string) => ((Number(date.slice(8, 10)) * 7 + Number(date.slice(5, 7))) % 13) + 0.25; // GB with 2 decimals
      const sent = new Map<string, number>();
      // Period by period: advance to the last day's 10:00 (before the billAt at the next midnight) and send the period's days in one batch.
      let first = Date.parse('2026-01-31T00:00:00Z');
      while (first < Date.parse('2027-03-31T00:00:00Z')) {
        const periodEnd = (await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body.items[0].period.end as string;
        const last = Date.parse(`${periodEnd}T00:00:00Z`);
        await env.advance(new Date(last + 10 * 3_600_000).toISOString());
        const events = [];
        for (let at = first; at <= last; at += DAY) {
          sent.set(day(at), valueOn(day(at)));
          events.push(event(subscription.id, 'storage', new Date(at + 9 * 3_600_000).toISOString(), { gb: valueOn(day(at)) }));
        }
        expect((await env.send(events)).accepted).toBe(events.length);
        first = last + DAY;
        await env.advance(new Date(first).toISOString());
      }
      const invoices = await env.invoices();
      expect(invoices).toHaveLength(14);
      let expectedStart = '2026-01-31';
      for (const invoice of invoices) {
        expect(invoice).toMatchObject({ status: 'booked', currency: 'EUR' });
        const [line] = invoice.items;
        expect(line.periodStart).toBe(expectedStart);
        // The oracle: the period's GB in hundredths, priced tier by tier (a line per tier reached), rounded once.
        let hundredths = 0;
        for (let at = Date.parse(`${line.periodStart}T00:00:00Z`); at <= Date.parse(`${line.periodEnd}T00:00:00Z`); at += DAY)
          hundredths += Math.round(sent.get(day(at))! * 100);
        const cents = (Math.min(hundredths, 10_000) * 10 + Math.max(hundredths - 10_000, 0) * 4) / 100;
        const tiers: [number, number, string][] = [
          [Math.min(hundredths, 10_000), 10, 'tier 1 (0–100)'],
          ...(hundredths > 10_000 ? [[hundredths - 10_000, 4, 'tier 2 (over 100)'] as [number, number, string]] : []),
        ];
        expect(invoice.items.map((l: any) => [l.sku, l.quantity, l.unitAmount, l.amount, l.description])).toEqual(
          tiers.map(([inTier, unitAmount, label]) => [
            'storage',
            inTier / 100,
            unitAmount,
            Math.round((inTier * unitAmount) / 100),
            `Metric storage: ${hundredths / 100}, ${label}`,
          ]),
        );
        expect(invoice.totalExclVat).toBe(Math.round(cents));
        expectedStart = day(Date.parse(`${line.periodEnd}T00:00:00Z`) + DAY);
      }
      expect(expectedStart).toBe('2027-03-31');
    }, 120_000);

    it('issue 20 #12: a graduated usage charge shows a line per tier used and one for a flat amount, a package charge its started packages; GET usage shows the same lines', async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.metric('storage', 'sum', 'gb');
      await env.metric('transfer', 'sum', 'gb');
      const tiers = [
        { upTo: 1000, unitAmount: 5 },
        { upTo: 4000, unitAmount: 2, flatAmount: 700 },
        { upTo: null, unitAmount: 1 },
      ];
      const graduated = await env.usagePrice('storage', { name: 'Storage', priceModel: 'graduated', pricing: { eur: { tiers } } });
      const perPackage = await env.usagePrice('transfer', {
        name: 'Transfer',
        priceModel: 'package',
        pricing: { eur: { packageSize: 1000, packageAmount: 900 } },
      });
      const subscription = await env.subscribe(graduated, { term: { start: '2026-03-01' }, items: [{ priceId: graduated }, { priceId: perPackage }] });
      await env.advance('2026-03-10T12:00:00.000Z');
      await env.send([
        event(subscription.id, 'storage', '2026-03-10T11:00:00Z', { gb: 4000 }),
        event(subscription.id, 'storage', '2026-03-10T11:00:00Z', { gb: '130' }),
        event(subscription.id, 'transfer', '2026-03-10T11:00:00Z', { gb: 2500.5 }),
      ]);
      const expected = [
        ['Storage', 'Metric storage: 4130, tier 1 (0–1000)', 1000, 5, 0, 5000],
        ['Storage', 'Metric storage: 4130, tier 2 (1000–4000)', 3000, 2, 0, 6000],
        ['Storage', 'Metric storage: 4130, tier 2 (1000–4000) flat amount', 1, 700, 0, 700],
        ['Storage', 'Metric storage: 4130, tier 3 (over 4000)', 130, 1, 0, 130],
        ['Transfer', 'Metric transfer: 2500.5, started packages', 3, 900, 0, 2700],
      ];
      const usage = (await env.call('GET', `/subscriptions/${subscription.id}/usage`, undefined, 200)).body.items;
      expect(usage.map((item: any) => [item.quantity, item.amount])).toEqual([
        [4130, 11830],
        [2500.5, 2700],
      ]);
      const shown = usage.flatMap((item: any) =>
        item.segments.flatMap((segment: any) =>
          segment.lines.map((line: any) => [line.kind, line.tier, line.quantity, line.unitAmount, line.discount, line.amount]),
        ),
      );
      expect(shown).toEqual([
        ['units', 1, 1000, 5, 0, 5000],
        ['units', 2, 3000, 2, 0, 6000],
        ['flat', 2, 1, 700, 0, 700],
        ['units', 3, 130, 1, 0, 130],
        ['packages', null, 3, 900, 0, 2700],
      ]);
      await env.advance('2026-04-01T00:00:00.000Z');
      const [invoice] = await env.invoices();
      expect(invoice.items.map((line: any) => [line.title, line.description, line.quantity, line.unitAmount, line.discount.amount, line.amount])).toEqual(
        expected,
      );
      for (const line of invoice.items) expect(line.amount).toBe(line.unitAmount * line.quantity);
      expect(invoice.totalExclVat).toBe(11830 + 2700);
    });

    it("issue 20 #18: an item whose usage cannot be billed never stops the other items' later periods; it is shown, retried alone, and billed once its event is cancelled", async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.metric('storage', 'sum', 'gb');
      await env.metric('calls', 'count');
      // 10^9 GB (the largest value) at 100 000.00 EUR per GB: beyond the largest amount (2^53 − 1 cents).
      const storage = await env.usagePrice('storage', { name: 'Storage', pricing: { eur: { unitAmount: 10_000_000 } } });
      const calls = await env.usagePrice('calls', { name: 'Calls' });
      const subscription = await env.subscribe(storage, { term: { start: '2026-03-01' }, items: [{ priceId: storage }, { priceId: calls }] });
      await env.advance('2026-03-10T12:00:00.000Z');
      const huge = event(subscription.id, 'storage', '2026-03-10T11:00:00Z', { gb: 1_000_000_000 });
      expect(
        (await env.send([huge, event(subscription.id, 'calls', '2026-03-10T11:00:00Z'), event(subscription.id, 'calls', '2026-03-10T11:00:00Z')])).accepted,
      ).toBe(3);

      await env.advance('2026-05-01T00:00:00.000Z');
      // March and April of the calls item are billed; storage waits for its retry.
      expect((await env.invoices()).map((invoice) => invoice.items.map((line: any) => [line.title, line.periodStart, line.amount]))).toEqual([
        [['Calls', '2026-03-01', 200]],
        [['Calls', '2026-04-01', 0]],
      ]);
      const storageItem = subscription.items[0].id;
      const failing = (await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body;
      expect(failing.billingFailure).toMatchObject({ itemId: storageItem, billAt: '2026-04-01T00:00:00.000Z' });
      expect(failing.billingFailure.reason).toMatch(/range/);

      // The event is corrected (its period is still open for the storage item): the retry bills March and April.
      expect((await env.call('POST', `/usage-events/${huge.id}/cancel`, {})).status).toBe(200);
      await env.advance('2026-05-01T00:30:00.000Z');
      const invoices = await env.invoices();
      expect(invoices.flatMap((invoice) => invoice.items.map((line: any) => [line.title, line.periodStart, line.amount])).sort()).toEqual([
        ['Calls', '2026-03-01', 200],
        ['Calls', '2026-04-01', 0],
        ['Storage', '2026-03-01', 0],
        ['Storage', '2026-04-01', 0],
      ]);
      expect((await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body.billingFailure).toBeNull();
    });

    it('issue 20 #18: late usage of a booked period that cannot be rated never stops the next billing', async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.metric('storage', 'sum', 'gb');
      const subscription = await env.subscribe(await env.usagePrice('storage', { name: 'Storage', pricing: { eur: { unitAmount: 10_000_000 } } }), {
        term: { start: '2026-03-01' },
      });
      await env.advance('2026-03-10T12:00:00.000Z');
      await env.send([event(subscription.id, 'storage', '2026-03-10T11:00:00Z', { gb: 1 })]);
      await env.advance('2026-04-05T00:00:00.000Z');
      // Late for the booked March, and beyond the largest amount once re-rated: it cannot be cancelled (March is booked) nor billed.
      const late = event(subscription.id, 'storage', '2026-03-30T11:00:00Z', { gb: 1_000_000_000 });
      expect((await env.send([late])).accepted).toBe(1);
      expectProblem(await env.call('POST', `/usage-events/${late.id}/cancel`, {}), 409, 'usage-event-billed');
      await env.advance('2026-05-01T00:00:00.000Z');
      expect((await env.invoices()).map((invoice) => invoice.items.map((line: any) => [line.title, line.periodStart, line.amount]))).toEqual([
        [['Storage', '2026-03-01', 10_000_000]],
        [['Storage', '2026-04-01', 0]],
      ]);
      expect((await env.call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body.billingFailure).toBeNull();
    });

    it('bills usage before a mid-period price change at the old price', async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.metric('calls', 'count');
      const priceId = await env.usagePrice('calls');
      const subscription = await env.subscribe(priceId, { term: { start: '2026-03-01' } });
      await env.advance('2026-03-05T12:00:00.000Z');
      await env.send([1, 2, 3].map(() => event(subscription.id, 'calls', '2026-03-05T11:00:00Z')));
      await env.advance('2026-03-15T00:00:00.000Z');
      await env.call('PUT', `/prices/${priceId}`, { pricing: { eur: { unitAmount: 200 } } }, 200);
      await env.advance('2026-03-20T12:00:00.000Z');
      await env.send([1, 2].map(() => event(subscription.id, 'calls', '2026-03-20T11:00:00Z')));
      const preview = (await env.call('GET', `/subscriptions/${subscription.id}/usage`, undefined, 200)).body.items[0];
      expect(preview).toMatchObject({
        quantity: 5,
        amount: 700,
        segments: [
          { quantity: 3, amount: 300 },
          { quantity: 2, amount: 400, priceFrom: '2026-03-15T00:00:00.000Z' },
        ],
      });
      await env.advance('2026-04-01T00:00:00.000Z');
      const [invoice] = await env.invoices();
      // A fee price bills each version's own events at its own unit price.
      expect(invoice.items.map((line: any) => [line.quantity, line.unitAmount, line.amount])).toEqual([
        [3, 100, 300],
        [2, 200, 400],
      ]);
      expect(invoice.items[0].description).toContain('3 of 5');
      expect(invoice.totalExclVat).toBe(preview.amount);
    });

    it('bills the usage of the final, shortened period when the term ends, and of the last period on cancellation; later events are refused', async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.metric('calls', 'count');
      const priceId = await env.usagePrice('calls');
      const termed = await env.subscribe(priceId, { term: { start: '2026-03-01', end: '2026-03-20' } });
      const cancelled = await env.subscribe(priceId, { term: { start: '2026-03-01' } });
      await env.advance('2026-03-10T12:00:00.000Z');
      await env.send([
        event(termed.id, 'calls', '2026-03-10T10:00:00Z'),
        event(termed.id, 'calls', '2026-03-10T11:00:00Z'),
        event(cancelled.id, 'calls', '2026-03-10T11:00:00Z'),
      ]);
      expect((await env.call('PUT', `/subscriptions/${cancelled.id}/cancel`, {}, 202)).body.cancelAt).toBe('2026-03-31');
      await env.advance('2026-03-25T00:00:00.000Z');
      expect((await env.send([event(termed.id, 'calls', '2026-03-21T10:00:00Z')])).results[0]).toMatchObject({ status: 'rejected', reason: 'outside-service' });
      await env.send([event(cancelled.id, 'calls', '2026-03-24T11:00:00Z')]);
      await env.advance('2026-04-02T00:00:00.000Z');
      const invoices = await env.invoices();
      const byPeriodEnd = Object.fromEntries(invoices.map((invoice) => [invoice.items[0].periodEnd, invoice]));
      expect(byPeriodEnd['2026-03-20'].items[0]).toMatchObject({ periodStart: '2026-03-01', quantity: 2, unitAmount: 100, amount: 200 });
      expect(byPeriodEnd['2026-03-31'].items[0]).toMatchObject({ periodStart: '2026-03-01', quantity: 2, amount: 200 });
      expect((await env.call('GET', `/subscriptions/${cancelled.id}`, undefined, 200)).body.status).toBe('ended');
      expect((await env.send([event(cancelled.id, 'calls', '2026-03-30T10:00:00Z')])).results[0]).toMatchObject({
        status: 'rejected',
        reason: 'subscription-ended',
      });
    });

    it('keeps the invoice a draft for the grace period (late events counted), then bills later late events as a correction on the next invoice', async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.call('PUT', '/usage-settings', { usageGracePeriodHours: 48 }, 200);
      await env.metric('calls', 'count');
      const priceId = await env.usagePrice('calls');
      const subscription = await env.subscribe(priceId, { term: { start: '2026-03-01' } });
      await env.advance('2026-03-10T12:00:00.000Z');
      await env.send([event(subscription.id, 'calls', '2026-03-10T10:00:00Z'), event(subscription.id, 'calls', '2026-03-10T11:00:00Z')]);

      await env.advance('2026-04-01T06:00:00.000Z');
      let [march] = await env.invoices();
      expect(march).toMatchObject({ status: 'draft', totalExclVat: 200 });
      // Late, within the grace period: counted on the draft.
      await env.send([event(subscription.id, 'calls', '2026-03-31T23:00:00Z')]);
      await env.advance('2026-04-03T00:00:00.000Z');
      [march] = await env.invoices();
      expect(march).toMatchObject({ status: 'booked', totalExclVat: 300 });
      expect(march.items[0]).toMatchObject({ quantity: 3, unitAmount: 100, periodStart: '2026-03-01', periodEnd: '2026-03-31' });

      // Late, after the grace period: a correction line on April's invoice; April's own usage on its own line.
      await env.advance('2026-04-05T00:00:00.000Z');
      await env.send([event(subscription.id, 'calls', '2026-03-30T10:00:00Z'), event(subscription.id, 'calls', '2026-04-04T10:00:00Z')]);
      await env.advance('2026-05-01T00:00:00.000Z');
      const april = (await env.invoices())[1];
      expect(april.status).toBe('draft');
      expect(april.items.map((line: any) => [line.title, line.periodStart, line.amount])).toEqual([
        ['Usage', '2026-04-01', 100],
        ['Correction: Usage', '2026-03-01', 100],
      ]);
      await env.advance('2026-05-03T00:00:00.000Z');
      expect((await env.invoices())[1]).toMatchObject({ status: 'booked', totalExclVat: 200 });
      // March itself never changes once booked.
      expect((await env.invoices())[0]).toMatchObject({ status: 'booked', totalExclVat: 300 });
    });
    it('a draft booked by hand during the grace period keeps its lines; events after it count as a correction on the next invoice', async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.call('PUT', '/usage-settings', { usageGracePeriodHours: 24 }, 200);
      await env.metric('calls', 'count');
      const priceId = await env.usagePrice('calls');
      const subscription = await env.subscribe(priceId, { term: { start: '2026-03-01' } });
      await env.advance('2026-03-10T12:00:00.000Z');
      await env.send([event(subscription.id, 'calls', '2026-03-10T10:00:00Z')]);
      await env.advance('2026-04-01T01:00:00.000Z');
      const [draft] = await env.invoices();
      expect(draft.status).toBe('draft');
      await env.call('PUT', `/invoices/${draft.id}/book`, {}, 200);
      await env.send([event(subscription.id, 'calls', '2026-03-31T10:00:00Z')]);
      await env.advance('2026-05-02T00:00:00.000Z');
      const [march, april] = await env.invoices();
      expect(march).toMatchObject({ status: 'booked', totalExclVat: 100 });
      expect(april.items.map((line: any) => [line.title, line.periodStart, line.amount])).toEqual([
        ['Usage', '2026-04-01', 0],
        ['Correction: Usage', '2026-03-01', 100],
      ]);
      expect(april.status).toBe('booked');
    });
    it('collects a subscription invoice with usage once it is booked, not while it waits as a draft', async () => {
      const env = environment();
      await env.advance('2026-03-01T00:00:00.000Z');
      await env.call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_usage12345' } }, 200);
      await env.call('PUT', '/usage-settings', { usageGracePeriodHours: 24 }, 200);
      await env.metric('calls', 'count');
      const priceId = await env.usagePrice('calls');
      const subscription = await env.subscribe(priceId, { term: { start: '2026-03-01' }, paymentMethod: { provider: 'sandbox', token: 'tok_success' } });
      await env.advance('2026-03-10T12:00:00.000Z');
      await env.send([event(subscription.id, 'calls', '2026-03-10T10:00:00Z'), event(subscription.id, 'calls', '2026-03-10T11:00:00Z')]);
      await env.advance('2026-04-01T12:00:00.000Z');
      const [draft] = await env.invoices();
      expect(draft.status).toBe('draft');
      const paymentsOf = async () =>
        (await env.call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${draft.id}`)}`, undefined, 200)).body.items as any[];
      await env.advance('2026-04-02T00:00:00.000Z');
      // The collection records the payment pending, then its gateway call settles it: wait for the settled state.
      const payments = await eventually(paymentsOf, (found) => found.some((payment) => payment.status !== 'pending'), {
        what: 'the collection payment to settle',
      });
      expect(payments).toEqual([expect.objectContaining({ amount: 200, status: 'succeeded' })]);
      expect((await env.invoices())[0]).toMatchObject({ status: 'booked', totalExclVat: 200 });
    });
  });
});
