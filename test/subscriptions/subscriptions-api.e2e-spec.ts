import { randomUUID } from 'node:crypto';
import { NotificationCatalogue } from '@billing/platform';
import { eventually, expectProblem, FakeClock, startTestApp, TestApp, TestResponse } from '@billing/testing';
import { createSelfSignedCertificate, Receiver, TestCertificate } from '../webhooks/webhook-test-kit';

const START = '2026-01-20T12:00:00.000Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The subscriptions API over HTTP against real Postgres: creating (every
 * field, generated and chosen handles, every 422), reading and listing,
 * cancelling and reactivating, environment isolation and the notifications.
 * Billing itself is in billing.e2e-spec.ts.
 */
describe('Subscriptions API', () => {
  const clock = new FakeClock(new Date(START));
  let t: TestApp;
  let certificate: TestCertificate;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    // The background dispatcher may deliver to a local HTTPS receiver (see test/webhooks).
    t = await startTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CA_FILE: certificate.certFile, WEBHOOK_POLL_INTERVAL_MS: '100' } });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await t.close();
    certificate.remove();
  });
  beforeEach(() => clock.set(START));

  const customer = (id: string = randomUUID()) => ({
    id,
    handle: 'C-1',
    name: 'Acme Oy',
    billingAddress: { street1: 'Mannerheimintie 1', city: 'Helsinki', country: 'FI' },
  });

  /** A fresh environment per test: its own handles, catalog, tax codes and clock. */
  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.request(method, path, { ...options, body, headers });
    const ok = async (method: string, path: string, body: unknown, expected: number): Promise<TestResponse> => {
      const response = await call(method, path, body);
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    const body = (priceId: string, fields: Record<string, unknown> = {}) => ({
      customer: customer(),
      currency: 'EUR',
      term: { start: '2026-02-01', end: null },
      items: [{ priceId }],
      ...fields,
    });
    return {
      id,
      options,
      call,
      ok,
      body,
      async product(name = 'Pro plan'): Promise<string> {
        return (await ok('POST', '/products', { name }, 201)).body.id;
      },
      /** A monthly advance EUR price (of `productId`, or of no product when null), with `fields` on top. */
      async price(productId: string | null, fields: Record<string, unknown> = {}): Promise<string> {
        const price = {
          name: 'Seat',
          priceModel: 'fee',
          pricing: { eur: { unitAmount: 3000 } },
          purchase: 'recurring',
          termCount: 1,
          termUnit: 'month',
          billingTiming: 'advance',
        };
        return (await ok('POST', '/prices', { ...price, ...(productId === null ? {} : { productId }), ...fields }, 201)).body.id;
      },
      async taxCode(code: string): Promise<void> {
        await ok('POST', '/tax-codes', { code, rate: 0.255, taxable: true }, 201);
      },
      create: (fields: Record<string, unknown>) => call('POST', '/subscriptions', fields),
      async subscribe(priceId: string, fields: Record<string, unknown> = {}) {
        return (await ok('POST', '/subscriptions', body(priceId, fields), 201)).body;
      },
      async advance(to: string) {
        return ok('POST', '/test-clock/advance', { to }, 200);
      },
    };
  }
  type Environment = ReturnType<typeof environment>;

  describe('POST /subscriptions', () => {
    it('201 with every documented field, ETag "1" and Location; GET answers the same', async () => {
      const env = environment();
      const product = await env.product('Pro plan');
      const seat = await env.price(product, { name: 'Seat' });
      const setup = await env.price(product, { name: 'Setup fee', purchase: 'one_time', termCount: undefined, termUnit: undefined, billingTiming: undefined });
      await env.taxCode('VAT');
      const buyer = customer();
      const response = await env.create({
        customer: buyer,
        currency: 'EUR',
        term: { start: '2026-02-01', end: '2026-07-31' },
        autoRenewal: true,
        timeZone: 'Europe/Helsinki',
        items: [{ priceId: seat, quantity: 2.5, taxCode: 'VAT' }, { priceId: setup }],
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.headers.get('location')).toBe(`/subscriptions/${response.body.id}`);
      // Helsinki is UTC+2 in winter: 2026-02-01 begins at 2026-01-31T22:00Z.
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        handle: 'SUB-000001',
        status: 'active',
        customer: buyer,
        currency: 'EUR',
        timeZone: 'Europe/Helsinki',
        term: { start: '2026-02-01', end: '2026-07-31' },
        autoRenewal: true,
        trial: null,
        cancelAt: null,
        pausedAt: null,
        resumeAt: null,
        endedAt: null,
        items: [
          {
            id: expect.stringMatching(UUID),
            billAt: '2026-01-31T22:00:00.000Z',
            period: { start: '2026-02-01', end: '2026-02-28' },
            quantity: 2.5,
            product: { id: product, name: 'Pro plan' },
            price: { id: seat, name: 'Seat' },
            taxCode: 'VAT',
          },
          {
            id: expect.stringMatching(UUID),
            billAt: '2026-01-31T22:00:00.000Z',
            period: null,
            quantity: 1,
            product: { id: product, name: 'Pro plan' },
            price: { id: setup, name: 'Setup fee' },
            taxCode: null,
          },
        ],
        paymentMethod: null,
        billingFailure: null,
        discounts: [],
        pendingChanges: [],
        latestChange: null,
        createdAt: START,
        updatedAt: START,
      });
      expect(response.body.items[0].id).not.toBe(response.body.items[1].id);
      const read = await env.call('GET', `/subscriptions/${response.body.id}`);
      expect(read.status).toBe(200);
      expect(read.headers.get('etag')).toBe('"1"');
      expect(read.body).toEqual(response.body);
    });

    it('defaults: timeZone UTC, autoRenewal false, quantity 1, taxCode null, an evergreen term; quantity with 4 decimals is kept', async () => {
      const env = environment();
      const price = await env.price(await env.product());
      const created = await env.subscribe(price, { items: [{ priceId: price }, { priceId: price, quantity: 0.0001 }] });
      expect(created).toMatchObject({ timeZone: 'UTC', autoRenewal: false, term: { start: '2026-02-01', end: null }, cancelAt: null });
      expect(created.items.map((item: any) => [item.quantity, item.taxCode, item.billAt])).toEqual([
        [1, null, '2026-02-01T00:00:00.000Z'],
        [0.0001, null, '2026-02-01T00:00:00.000Z'],
      ]);
    });

    describe('handles', () => {
      it('generates SUB-000001, SUB-000002 in order per environment, independently in each environment', async () => {
        const a = environment();
        const b = environment();
        const priceA = await a.price(await a.product());
        const priceB = await b.price(await b.product());
        expect((await a.subscribe(priceA)).handle).toBe('SUB-000001');
        expect((await a.subscribe(priceA)).handle).toBe('SUB-000002');
        expect((await b.subscribe(priceB)).handle).toBe('SUB-000001');
        expect((await a.subscribe(priceA)).handle).toBe('SUB-000003');
        expect((await b.subscribe(priceB)).handle).toBe('SUB-000002');
      });

      it('a refused request uses up no generated handle', async () => {
        const env = environment();
        const price = await env.price(await env.product());
        expectProblem(await env.create(env.body(randomUUID())), 422, 'validation-failed', '/items/0/priceId');
        expect((await env.subscribe(price)).handle).toBe('SUB-000001');
      });

      it('a chosen handle is kept; taking it again is a 409 subscription-handle-taken (in another environment it is free)', async () => {
        const env = environment();
        const price = await env.price(await env.product());
        expect((await env.subscribe(price, { handle: 'gold-customer-1' })).handle).toBe('gold-customer-1');
        expectProblem(await env.create(env.body(price, { handle: 'gold-customer-1' })), 409, 'subscription-handle-taken');
        const other = environment();
        expect((await other.subscribe(await other.price(await other.product()), { handle: 'gold-customer-1' })).handle).toBe('gold-customer-1');
        // The refused one wrote nothing.
        const list = await env.call('GET', '/subscriptions');
        expect(list.body.items.map((s: any) => s.handle)).toEqual(['gold-customer-1']);
      });

      it('concurrent creates each get their own generated handle, with no gaps', async () => {
        const env = environment();
        const price = await env.price(await env.product());
        const responses = await Promise.all(Array.from({ length: 8 }, () => env.create(env.body(price))));
        expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
        expect(responses.map((r) => r.body.handle).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `SUB-00000${i + 1}`));
      });

      it('a chosen handle equal to the next generated one makes the generator skip it', async () => {
        const env = environment();
        const price = await env.price(await env.product());
        expect((await env.subscribe(price, { handle: 'SUB-000001' })).handle).toBe('SUB-000001');
        expect((await env.subscribe(price)).handle).toBe('SUB-000002');
        expect((await env.subscribe(price, { handle: 'SUB-000004' })).handle).toBe('SUB-000004');
        expect((await env.subscribe(price)).handle).toBe('SUB-000003');
        expect((await env.subscribe(price)).handle).toBe('SUB-000005');
        // Taking a generated handle by choice is refused like any other taken handle.
        expectProblem(await env.create(env.body(price, { handle: 'SUB-000002' })), 409, 'subscription-handle-taken');
      });
    });

    describe('422', () => {
      let env: Environment;
      let other: Environment;
      const prices: Record<'monthly' | 'archived' | 'noProduct' | 'usdOnly' | 'foreign', string> = {} as never;

      beforeAll(async () => {
        env = environment();
        other = environment();
        const product = await env.product();
        prices.monthly = await env.price(product);
        prices.archived = await env.price(product, { name: 'Old' });
        await env.ok('PUT', `/prices/${prices.archived}/archive`, {}, 200);
        prices.noProduct = await env.price(null, { name: 'Loose' });
        prices.usdOnly = await env.price(product, { name: 'US only', pricing: { usd: { unitAmount: 3000 } } });
        prices.foreign = await other.price(await other.product());
        await env.taxCode('VAT');
      });

      type Body = Record<string, any>;
      const without = (body: Body, key: string) => Object.fromEntries(Object.entries(body).filter(([name]) => name !== key));
      const cases: Array<[string, (body: Body) => Body, string]> = [
        ['a missing customer', (b) => without(b, 'customer'), '/customer'],
        ['a customer without id', (b) => ({ ...b, customer: without(b.customer, 'id') }), '/customer/id'],
        ['a missing currency', (b) => without(b, 'currency'), '/currency'],
        ['an unsupported currency', (b) => ({ ...b, currency: 'XYZ' }), '/currency'],
        ['a missing term', (b) => without(b, 'term'), '/term'],
        ['a missing term.start', (b) => ({ ...b, term: { end: null } }), '/term/start'],
        ['term.end before term.start', (b) => ({ ...b, term: { start: '2026-02-01', end: '2026-01-31' } }), '/term/end'],
        ['an invalid term.start (2026-02-30)', (b) => ({ ...b, term: { start: '2026-02-30', end: null } }), '/term/start'],
        ['an invalid term.end (2026-02-30)', (b) => ({ ...b, term: { start: '2026-02-01', end: '2026-02-30' } }), '/term/end'],
        ['a term.start that is no date', (b) => ({ ...b, term: { start: 'tomorrow', end: null } }), '/term/start'],
        ['an unknown property in term', (b) => ({ ...b, term: { start: '2026-02-01', end: null, length: 12 } }), '/term/length'],
        ['an invalid timeZone', (b) => ({ ...b, timeZone: 'Mars/Olympus_Mons' }), '/timeZone'],
        ['autoRenewal not a boolean', (b) => ({ ...b, autoRenewal: 'yes' }), '/autoRenewal'],
        ['missing items', (b) => without(b, 'items'), '/items'],
        ['empty items', (b) => ({ ...b, items: [] }), '/items'],
        ['51 items', (b) => ({ ...b, items: Array.from({ length: 51 }, () => ({ priceId: prices.monthly })) }), '/items'],
        ['an item without priceId', (b) => ({ ...b, items: [{ quantity: 1 }] }), '/items/0/priceId'],
        ['an unknown property in an item', (b) => ({ ...b, items: [{ priceId: prices.monthly, discount: 5 }] }), '/items/0/discount'],
        ['quantity 0', (b) => ({ ...b, items: [{ priceId: prices.monthly, quantity: 0 }] }), '/items/0/quantity'],
        ['a negative quantity', (b) => ({ ...b, items: [{ priceId: prices.monthly, quantity: -1 }] }), '/items/0/quantity'],
        ['a quantity that is not a number', (b) => ({ ...b, items: [{ priceId: prices.monthly, quantity: '2' }] }), '/items/0/quantity'],
        ['an unknown priceId', (b) => ({ ...b, items: [{ priceId: randomUUID() }] }), '/items/0/priceId'],
        ['a priceId that is no uuid', (b) => ({ ...b, items: [{ priceId: 'price-1' }] }), '/items/0/priceId'],
        ['a price of another environment', (b) => ({ ...b, items: [{ priceId: prices.foreign }] }), '/items/0/priceId'],
        ['an archived price', (b) => ({ ...b, items: [{ priceId: prices.archived }] }), '/items/0/priceId'],
        ['a price without product', (b) => ({ ...b, items: [{ priceId: prices.noProduct }] }), '/items/0/priceId'],
        ['a price without pricing in the currency', (b) => ({ ...b, items: [{ priceId: prices.monthly }, { priceId: prices.usdOnly }] }), '/items/1/priceId'],
        [
          'an unknown taxCode',
          (b) => ({
            ...b,
            items: [
              { priceId: prices.monthly, taxCode: 'VAT' },
              { priceId: prices.monthly, taxCode: 'NOPE' },
            ],
          }),
          '/items/1/taxCode',
        ],
        ['a handle of 101 characters', (b) => ({ ...b, handle: 'h'.repeat(101) }), '/handle'],
        ['an empty handle', (b) => ({ ...b, handle: '' }), '/handle'],
        ['a handle that is not a string', (b) => ({ ...b, handle: 7 }), '/handle'],
        ['an unknown top-level property', (b) => ({ ...b, plan: 'gold' }), '/plan'],
        ['a read-only property (status)', (b) => ({ ...b, status: 'active' }), '/status'],
      ];

      it.each(cases)('%s → 422 validation-failed at its pointer, nothing written', async (_label, change, pointer) => {
        const response = await env.create(change(env.body(prices.monthly)));
        expectProblem(response, 422, 'validation-failed', pointer);
        expect((await env.call('GET', '/subscriptions')).body.items).toEqual([]);
      });

      it('a quantity with 5 decimals → 422 too-many-decimals at /items/0/quantity (as for invoice and price quantities)', async () => {
        const response = await env.create(env.body(prices.monthly, { items: [{ priceId: prices.monthly, quantity: 1.00001 }] }));
        expectProblem(response, 422, 'too-many-decimals', '/items/0/quantity');
      });

      it('reports every item problem at once, each at its own pointer', async () => {
        const response = await env.create(
          env.body(prices.monthly, { items: [{ priceId: prices.archived }, { priceId: prices.monthly, quantity: 0 }, { priceId: prices.noProduct }] }),
        );
        expectProblem(response, 422, 'validation-failed');
        expect(response.body.errors.map((e: any) => e.pointer).sort()).toEqual(['/items/0/priceId', '/items/1/quantity', '/items/2/priceId']);
      });

      it('50 items are accepted', async () => {
        const fresh = environment();
        const price = await fresh.price(await fresh.product());
        const created = await fresh.subscribe(price, { items: Array.from({ length: 50 }, () => ({ priceId: price })) });
        expect(created.items).toHaveLength(50);
      });
    });
  });

  describe('GET /subscriptions/{id}', () => {
    it('404 not-found for an unknown id and for a malformed one', async () => {
      const env = environment();
      expectProblem(await env.call('GET', `/subscriptions/${randomUUID()}`), 404, 'not-found');
      expectProblem(await env.call('GET', '/subscriptions/not-a-uuid'), 404, 'not-found');
    });
  });

  describe('GET /subscriptions', () => {
    it('newest first, paged by limit and pageToken over 25 subscriptions; filters status and customerId', async () => {
      const env = environment();
      const price = await env.price(await env.product());
      const alice = randomUUID();
      const bob = randomUUID();
      const created: any[] = [];
      for (let i = 0; i < 25; i++) {
        clock.advance(1000);
        created.push(await env.subscribe(price, { customer: customer(i % 2 === 0 ? alice : bob) }));
      }
      const newestFirst = [...created].reverse().map((s) => s.id);

      const first = await env.call('GET', '/subscriptions?limit=10');
      expect(first.status).toBe(200);
      expect(first.body.items.map((s: any) => s.id)).toEqual(newestFirst.slice(0, 10));
      expect(first.body.items[0]).toEqual(created[24]);
      const second = await env.call('GET', `/subscriptions?limit=10&pageToken=${encodeURIComponent(first.body.nextPageToken)}`);
      expect(second.body.items.map((s: any) => s.id)).toEqual(newestFirst.slice(10, 20));
      const third = await env.call('GET', `/subscriptions?limit=10&pageToken=${encodeURIComponent(second.body.nextPageToken)}`);
      expect(third.body.items.map((s: any) => s.id)).toEqual(newestFirst.slice(20));
      expect(third.body.nextPageToken).toBeNull();
      // The default page is 20.
      const byDefault = await env.call('GET', '/subscriptions');
      expect(byDefault.body.items.map((s: any) => s.id)).toEqual(newestFirst.slice(0, 20));
      expect(byDefault.body.nextPageToken).toEqual(expect.any(String));

      for (const index of [3, 4, 10]) await env.ok('PUT', `/subscriptions/${created[index].id}/cancel`, {}, 202);
      const cancelled = await env.call('GET', '/subscriptions?status=cancelled');
      expect(cancelled.body.items.map((s: any) => s.id)).toEqual([created[10].id, created[4].id, created[3].id]);
      expect(cancelled.body.items.every((s: any) => s.status === 'cancelled')).toBe(true);
      const active = await env.call('GET', '/subscriptions?status=active&limit=100');
      expect(active.body.items).toHaveLength(22);
      expect((await env.call('GET', '/subscriptions?status=ended')).body.items).toEqual([]);

      const alices = await env.call('GET', `/subscriptions?customerId=${alice}&limit=100`);
      expect(alices.body.items.map((s: any) => s.id)).toEqual(newestFirst.filter((_, i) => (24 - i) % 2 === 0));
      expect(alices.body.items).toHaveLength(13);
      const bobsCancelled = await env.call('GET', `/subscriptions?customerId=${bob}&status=cancelled`);
      expect(bobsCancelled.body.items.map((s: any) => s.id)).toEqual([created[3].id]);
      const pagedFiltered = await env.call('GET', `/subscriptions?customerId=${bob}&limit=5`);
      const rest = await env.call('GET', `/subscriptions?customerId=${bob}&limit=10&pageToken=${encodeURIComponent(pagedFiltered.body.nextPageToken)}`);
      expect([...pagedFiltered.body.items, ...rest.body.items].map((s: any) => s.id)).toEqual(newestFirst.filter((_, i) => (24 - i) % 2 === 1));
      expect(rest.body.nextPageToken).toBeNull();
      expect((await env.call('GET', `/subscriptions?customerId=${randomUUID()}`)).body).toEqual({ items: [], nextPageToken: null });
    });

    it.each([
      ['an unknown status', 'status=suspended', '/query/status'],
      ['a customerId that is no uuid', 'customerId=cust-1', '/query/customerId'],
      ['an unknown query parameter', 'handle=SUB-000001', '/query/handle'],
      ['a repeated parameter', 'status=active&status=cancelled', '/query/status'],
      ['limit 0', 'limit=0', '/query/limit'],
      ['limit 101', 'limit=101', '/query/limit'],
      ['a pageToken that is not one', 'pageToken=not-a-token', '/query/pageToken'],
      [
        'a forged pageToken (well-formed, not issued here)',
        `pageToken=${Buffer.from(JSON.stringify({ createdAt: '2026-01-20', id: randomUUID() })).toString('base64url')}`,
        '/query/pageToken',
      ],
      [
        'a forged pageToken with an id that is no uuid',
        `pageToken=${Buffer.from(JSON.stringify({ createdAt: START, id: "x' or 1=1" })).toString('base64url')}`,
        '/query/pageToken',
      ],
    ])('%s → 422 at its pointer', async (_label, query, pointer) => {
      expectProblem(await environment().call('GET', `/subscriptions?${query}`), 422, 'validation-failed', pointer);
    });
  });

  describe('PUT /subscriptions/{id}/cancel', () => {
    it('202 cancelled at the end of the current period of a monthly advance item; again: the same cancelAt; after the end: 409 subscription-ended', async () => {
      const env = environment();
      const price = await env.price(await env.product());
      const subscription = await env.subscribe(price, { term: { start: '2026-01-31', end: null } });
      await env.advance('2026-03-05T10:00:00.000Z');
      // Billed on Jan 31 and Feb 28: the current period is 2026-02-28 – 2026-03-30 (anchor day 31, clamped).
      const before = await env.call('GET', `/subscriptions/${subscription.id}`);
      expect(before.body.items[0]).toMatchObject({ period: { start: '2026-02-28', end: '2026-03-30' }, billAt: '2026-03-31T00:00:00.000Z' });
      const version = Number(JSON.parse(before.headers.get('etag')!));

      const cancelled = await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {});
      expect(cancelled.status).toBe(202);
      expect(cancelled.headers.get('etag')).toBe(`"${version + 1}"`);
      expect(cancelled.body).toMatchObject({
        id: subscription.id,
        status: 'cancelled',
        cancelAt: '2026-03-30',
        endedAt: null,
        updatedAt: '2026-03-05T10:00:00.000Z',
      });
      expect(cancelled.body.items[0]).toMatchObject({ period: { start: '2026-02-28', end: '2026-03-30' }, billAt: null });
      expect((await env.call('GET', `/subscriptions/${subscription.id}`)).body).toEqual(cancelled.body);

      await env.advance('2026-03-20T00:00:00.000Z');
      const again = await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {});
      expect(again.status).toBe(202);
      expect(again.body).toEqual(cancelled.body);
      expect(again.headers.get('etag')).toBe(cancelled.headers.get('etag'));
      // No body at all is the same as {}.
      expect((await env.call('PUT', `/subscriptions/${subscription.id}/cancel`)).status).toBe(202);

      await env.advance('2026-03-31T00:00:00.000Z');
      expect((await env.call('GET', `/subscriptions/${subscription.id}`)).body).toMatchObject({
        status: 'ended',
        endedAt: '2026-03-31T00:00:00.000Z',
        cancelAt: '2026-03-30',
      });
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}), 409, 'subscription-ended');
    });

    it('cancelAt is the latest current-period end among the recurring items (a weekly item ending after the monthly one)', async () => {
      const env = environment();
      const product = await env.product();
      const monthly = await env.price(product, { name: 'Seat' });
      const weekly = await env.price(product, { name: 'Support', termUnit: 'week' });
      const subscription = await env.subscribe(monthly, { term: { start: '2026-01-31', end: null }, items: [{ priceId: monthly }, { priceId: weekly }] });
      // On 2026-03-30 the monthly period ends that day; the weekly one (from 2026-03-28) ends on 2026-04-03.
      await env.advance('2026-03-30T09:00:00.000Z');
      const cancelled = await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {});
      expect(cancelled.status).toBe(202);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelAt: '2026-04-03' });
    });

    it('an ended termed subscription (term.end passed, no autoRenewal) is a 409 subscription-ended', async () => {
      const env = environment();
      const price = await env.price(await env.product());
      const subscription = await env.subscribe(price, { term: { start: '2026-02-01', end: '2026-02-28' } });
      await env.advance('2026-03-01T00:00:00.000Z');
      expect((await env.call('GET', `/subscriptions/${subscription.id}`)).body).toMatchObject({ status: 'ended', endedAt: '2026-03-01T00:00:00.000Z' });
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}), 409, 'subscription-ended');
    });

    it('a body with any property → 422 at its pointer, nothing written', async () => {
      const env = environment();
      const subscription = await env.subscribe(await env.price(await env.product()));
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, { cancelAt: '2026-03-01' }), 422, 'validation-failed', '/cancelAt');
      const read = await env.call('GET', `/subscriptions/${subscription.id}`);
      expect(read.body).toMatchObject({ status: 'active', cancelAt: null });
      expect(read.headers.get('etag')).toBe('"1"');
    });

    it('If-Match: the current ETag is accepted, a stale one is a 409 version-conflict', async () => {
      const env = environment();
      const subscription = await env.subscribe(await env.price(await env.product()));
      const cancelled = await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}, { 'if-match': '"1"' });
      expect(cancelled.status).toBe(202);
      expect(cancelled.headers.get('etag')).toBe('"2"');
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {}, { 'if-match': '"1"' }), 409, 'version-conflict');
      const reactivated = await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {}, { 'if-match': '"2"' });
      expect(reactivated.status).toBe(200);
      expect(reactivated.headers.get('etag')).toBe('"3"');
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/cancel`, {}, { 'if-match': '"2"' }), 409, 'version-conflict');
      expect((await env.call('GET', `/subscriptions/${subscription.id}`)).body).toMatchObject({ status: 'active', cancelAt: null });
    });

    it('404 not-found for an unknown or malformed id', async () => {
      const env = environment();
      expectProblem(await env.call('PUT', `/subscriptions/${randomUUID()}/cancel`, {}), 404, 'not-found');
      expectProblem(await env.call('PUT', '/subscriptions/nope/cancel', {}), 404, 'not-found');
    });
  });

  describe('PUT /subscriptions/{id}/reactivate', () => {
    it('200 undoes a cancellation before cancelAt: active, cancelAt null, billAt back', async () => {
      const env = environment();
      const subscription = await env.subscribe(await env.price(await env.product()));
      const cancelled = await env.ok('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202);
      expect(cancelled.body.cancelAt).toBe('2026-02-28');
      const reactivated = await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {});
      expect(reactivated.status).toBe(200);
      expect(reactivated.body).toEqual({ ...subscription, status: 'active', cancelAt: null });
      expect((await env.call('GET', `/subscriptions/${subscription.id}`)).body).toEqual(reactivated.body);
    });

    it('409 subscription-not-cancelled for an active subscription (and after a reactivation); 422 for a body property; 404 unknown', async () => {
      const env = environment();
      const subscription = await env.subscribe(await env.price(await env.product()));
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {}), 409, 'subscription-not-cancelled');
      await env.ok('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202);
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, { now: true }), 422, 'validation-failed', '/now');
      await env.ok('PUT', `/subscriptions/${subscription.id}/reactivate`, {}, 200);
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {}), 409, 'subscription-not-cancelled');
      expectProblem(await env.call('PUT', `/subscriptions/${randomUUID()}/reactivate`, {}), 404, 'not-found');
    });

    it('409 subscription-ended once cancelAt has passed', async () => {
      const env = environment();
      const subscription = await env.subscribe(await env.price(await env.product()));
      await env.ok('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202);
      await env.advance('2026-03-01T00:00:00.000Z');
      expectProblem(await env.call('PUT', `/subscriptions/${subscription.id}/reactivate`, {}), 409, 'subscription-ended');
    });
  });

  describe('environments', () => {
    it("another environment's token answers 404 on every route; a token without the environment is a 403", async () => {
      const env = environment();
      const other = environment();
      const subscription = await env.subscribe(await env.price(await env.product()));
      const asOther = (method: string, path: string) => other.call(method, path, method === 'GET' ? undefined : {});
      expectProblem(await asOther('GET', `/subscriptions/${subscription.id}`), 404, 'not-found');
      expectProblem(await asOther('PUT', `/subscriptions/${subscription.id}/cancel`), 404, 'not-found');
      expectProblem(await asOther('PUT', `/subscriptions/${subscription.id}/reactivate`), 404, 'not-found');
      expect((await asOther('GET', '/subscriptions')).body).toEqual({ items: [], nextPageToken: null });

      // The other environment's token on this environment's header: forbidden.
      const foreignToken = { environment: env.id, token: t.token([other.id]) };
      const forbidden = (method: string, path: string, body?: unknown) => t.request(method, path, { ...foreignToken, body });
      expectProblem(await forbidden('GET', `/subscriptions/${subscription.id}`), 403, 'forbidden-environment');
      expectProblem(await forbidden('GET', '/subscriptions'), 403, 'forbidden-environment');
      expectProblem(await forbidden('POST', '/subscriptions', env.body(subscription.items[0].price.id)), 403, 'forbidden-environment');
      expectProblem(await forbidden('PUT', `/subscriptions/${subscription.id}/cancel`, {}), 403, 'forbidden-environment');
      expectProblem(await forbidden('PUT', `/subscriptions/${subscription.id}/reactivate`, {}), 403, 'forbidden-environment');

      const read = await env.call('GET', `/subscriptions/${subscription.id}`);
      expect(read.body).toEqual(subscription);
      expect(read.headers.get('etag')).toBe('"1"');
    });
  });

  describe('notifications', () => {
    /** The first notification of `type` the receiver got, once it got one. */
    const notificationOf = (receiver: Receiver, type: string) =>
      eventually(
        async (): Promise<any> => receiver.requests.map((r) => JSON.parse(r.rawBody)).find((b) => b.type === type),
        (found) => found !== undefined,
        { what: `the ${type} notification` },
      );

    it('the webhook catalogue has the subscription notifications', () => {
      const names = t.app
        .get(NotificationCatalogue)
        .all()
        .map((n) => n.name)
        .filter((name) => name.startsWith('subscription.'));
      expect(names.sort()).toEqual([
        'subscription.cancelled',
        'subscription.created',
        'subscription.discount_applied',
        'subscription.discount_ended',
        'subscription.ended',
        'subscription.paused',
        'subscription.reactivated',
        'subscription.renewed',
        'subscription.resumed',
        'subscription.trial_ended',
        'subscription.trial_will_end',
        'subscription.updated',
      ]);
    });

    it('a subscribed receiver gets subscription.created, .cancelled and .reactivated, each with the subscription as of its event', async () => {
      const env = environment();
      const receiver = await new Receiver(certificate).start();
      receivers.push(receiver);
      await env.ok('PUT', '/webhooks/subscribe', { url: receiver.url() }, 200);
      const subscription = await env.subscribe(await env.price(await env.product()));
      const cancelled = (await env.ok('PUT', `/subscriptions/${subscription.id}/cancel`, {}, 202)).body;
      const reactivated = (await env.ok('PUT', `/subscriptions/${subscription.id}/reactivate`, {}, 200)).body;

      const bodyOf = (type: string) => notificationOf(receiver, type);
      const created = await bodyOf('subscription.created');
      expect(created).toMatchObject({ type: 'subscription.created', environmentId: env.id, data: subscription });
      expect((await bodyOf('subscription.cancelled')).data).toEqual(cancelled);
      expect((await bodyOf('subscription.reactivated')).data).toEqual(reactivated);
    });

    it("issue 20 #9: a subscription's payment method token shows only as its hint: POST and GET /subscriptions (as of a past instant too), GET /events, its history and the subscription.created notification", async () => {
      const env = environment();
      const receiver = await new Receiver(certificate).start();
      receivers.push(receiver);
      await env.ok('PUT', '/webhooks/subscribe', { url: receiver.url() }, 200);
      await env.ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_hint12345' } }, 200);
      const token = 'tok_success';
      const created = await env.ok(
        'POST',
        '/subscriptions',
        env.body(await env.price(await env.product()), { paymentMethod: { provider: 'sandbox', token } }),
        201,
      );
      const shown = { provider: 'sandbox', tokenHint: 'ss' };
      expect(created.body.paymentMethod).toEqual(shown);
      const read = await env.ok('GET', `/subscriptions/${created.body.id}`, undefined, 200);
      expect(read.body.paymentMethod).toEqual(shown);
      const listed = await env.ok('GET', '/subscriptions', undefined, 200);
      expect(listed.body.items[0].paymentMethod).toEqual(shown);
      const events = await env.ok('GET', `/events?resourceId=${created.body.id}`, undefined, 200);
      expect(events.body.items.find((event: { type: string }) => event.type === 'SubscriptionCreated').data.paymentMethod).toEqual(shown);
      const history = await env.ok('GET', `/subscriptions/${created.body.id}/history`, undefined, 200);
      expect(history.body.items.find((event: { type: string }) => event.type === 'SubscriptionCreated').data.paymentMethod).toEqual(shown);
      const asOf = await env.ok(
        'GET',
        `/subscriptions/${created.body.id}?asOf=${encodeURIComponent(new Date(Date.parse(START) + 60_000).toISOString())}`,
        undefined,
        200,
      );
      expect(asOf.body.paymentMethod).toEqual(shown);
      const notification = await notificationOf(receiver, 'subscription.created');
      expect(notification.data.paymentMethod).toEqual(shown);
      for (const text of [created.text, read.text, listed.text, events.text, history.text, asOf.text, ...receiver.requests.map((r) => r.rawBody)])
        expect(text).not.toContain(token);
    });
  });
});

/**
 * Dates the subscription calendar cannot carry (a period or the day after the
 * end past 9999-12-31). Each case runs on its own app and database: a
 * subscription its read model cannot fold stops that projection, and with it
 * every later write the projection follows (subscriptions, prices, products,
 * tax codes) in every environment.
 */
describe('Subscriptions API: terms and periods past the calendar', () => {
  const send = async (t: TestApp, method: string, path: string, body: unknown, idempotencyKey?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${t.token()}`, 'x-environment': t.environmentId, 'content-type': 'application/json' };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const response = await fetch(`${t.baseUrl}${path}`, { method, headers, body: JSON.stringify(body) });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    ['term.end 9999-12-31', { term: { start: '2026-02-01', end: '9999-12-31' } }, {}, '/term/end'],
    ['term.start 9999-12-31', { term: { start: '9999-12-31', end: null } }, {}, '/term/start'],
    ['a price billed every 8000 years', {}, { termCount: 8000, termUnit: 'year' }, '/items/0/priceId'],
  ])('%s → 201 or a 422 at its pointer, never a 5xx; later writes still succeed', async (_label, fields, priceFields, pointer) => {
    const t = await startTestApp({ clock: new FakeClock(new Date(START)), env: { READ_MODEL_TIMEOUT_MS: '1500' } });
    try {
      const product = (await send(t, 'POST', '/products', { name: 'Pro plan' })).body.id;
      const price = {
        name: 'Seat',
        priceModel: 'fee',
        pricing: { eur: { unitAmount: 3000 } },
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        billingTiming: 'advance',
        productId: product,
      };
      const priceId = (await send(t, 'POST', '/prices', { ...price, ...priceFields })).body.id;
      const body = {
        customer: { id: randomUUID(), handle: null, name: 'Acme Oy' },
        currency: 'EUR',
        term: { start: '2026-02-01', end: null },
        items: [{ priceId }],
        ...fields,
      };
      // With an Idempotency-Key (the answer is rendered inside the write's transaction) and without one (after its commit).
      const withKey = await send(t, 'POST', '/subscriptions', body, randomUUID());
      const withoutKey = await send(t, 'POST', '/subscriptions', body);
      const laterWrite = await send(t, 'POST', '/products', { name: 'Next' });
      const answered = (status: number) => (status === 201 || status === 422 ? '201 or 422' : status);
      expect({ withKey: answered(withKey.status), withoutKey: answered(withoutKey.status), laterWrite: laterWrite.status }).toEqual({
        withKey: '201 or 422',
        withoutKey: '201 or 422',
        laterWrite: 201,
      });
      for (const response of [withKey, withoutKey]) if (response.status === 422) expectProblem(response, 422, 'validation-failed', pointer);
    } finally {
      await t.close();
    }
  });
});
