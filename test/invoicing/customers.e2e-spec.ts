import { randomUUID } from 'node:crypto';
import { EventStore } from '@billing/event-store';
import { NotificationCatalogue } from '@billing/platform';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { customer as inlineCustomer, otherEnvironment, pointersOf } from './invoicing-helpers';

/**
 * Customers over HTTP against real Postgres: CRUD with every 422, handles,
 * paging and filters, If-Match, deletion (archive) and what blocks it,
 * invoices and subscriptions made out to a customer record (a draft shows the
 * customer as it is, booking freezes it), the payment method's token never
 * shown, another environment's customers never reachable, notifications.
 */
describe('Customers over HTTP', () => {
  let t: TestApp;
  const clock = new FakeClock(new Date('2026-01-20T10:00:00.000Z'));
  const TOKEN = 'tok_success';

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  const full = (fields: Record<string, unknown> = {}) => ({
    name: 'Acme Oy',
    email: 'billing@acme.example',
    billingAddress: { street1: 'Mannerheimintie 1', postalCode: '00100', city: 'Helsinki', country: 'FI' },
    taxIds: [{ type: 'eu_vat', value: 'FI 2077 4740' }],
    locale: 'fi-FI',
    timeZone: 'Europe/Helsinki',
    currency: 'eur',
    invoiceSettings: { footer: 'Kiitos', paymentTermsDays: 14 },
    defaultPaymentMethod: { provider: 'sandbox', token: TOKEN },
    metadata: { crm: '42' },
    ...fields,
  });

  async function create(body: Record<string, unknown> = full()) {
    const response = await t.request('POST', '/customers', { body });
    if (response.status !== 201) throw new Error(`POST /customers: ${response.status} ${response.text}`);
    return response.body;
  }

  const line = { quantity: 2, unitAmount: 1000 };

  describe('create, read, update', () => {
    it('201 with defaults, Location and ETag; GET answers the same; the token is shown only as a hint', async () => {
      const response = await t.request('POST', '/customers', { body: full() });
      expect(response.status).toBe(201);
      expect(response.headers.get('location')).toBe(`/customers/${response.body.id}`);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.body).toEqual({
        id: response.body.id,
        handle: `cus_${response.body.id.replace(/-/g, '').slice(0, 12)}`,
        status: 'active',
        name: 'Acme Oy',
        email: 'billing@acme.example',
        billingAddress: { street1: 'Mannerheimintie 1', street2: null, postalCode: '00100', city: 'Helsinki', county: null, country: 'FI', state: null },
        taxIds: [{ type: 'eu_vat', value: 'FI20774740' }],
        locale: 'fi-FI',
        timeZone: 'Europe/Helsinki',
        currency: 'EUR',
        invoiceSettings: { templateGroupId: null, footer: 'Kiitos', paymentTermsDays: 14 },
        defaultPaymentMethod: { provider: 'sandbox', tokenHint: 'ss' },
        metadata: { crm: '42' },
        balances: [],
        discounts: [],
        createdAt: '2026-01-20T10:00:00.000Z',
        updatedAt: null,
        archivedAt: null,
      });
      const read = await t.request('GET', `/customers/${response.body.id}`);
      expect(read.body).toEqual(response.body);
      expect(read.headers.get('etag')).toBe('"1"');
      const minimal = await create({});
      expect(minimal).toMatchObject({ locale: 'en', timeZone: 'UTC', name: null, email: null, defaultPaymentMethod: null, metadata: {}, taxIds: [] });
    });

    it.each([
      ['a bad e-mail', { email: 'nope@' }, '/email'],
      ['a bad eu_vat prefix', { taxIds: [{ type: 'eu_vat', value: 'US123456789' }] }, '/taxIds/0/value'],
      ['a malformed eu_vat', { taxIds: [{ type: 'eu_vat', value: 'FI1' }] }, '/taxIds/0/value'],
      ['an eu_vat with a valid prefix only', { taxIds: [{ type: 'eu_vat', value: 'FI12' }] }, '/taxIds/0/value'],
      [
        'an eu_vat with a wrong check digit, second of two',
        {
          taxIds: [
            { type: 'vat', value: 'x' },
            { type: 'eu_vat', value: 'DE129273399' },
          ],
        },
        '/taxIds/1/value',
      ],
      ['an unknown property', { nickname: 'x' }, '/nickname'],
      ['a read-only property', { id: randomUUID() }, '/id'],
      ['an unknown time zone', { timeZone: 'Mars/Olympus' }, '/timeZone'],
      ['a bad locale', { locale: 'english!' }, '/locale'],
      ['payment terms of 366 days', { invoiceSettings: { paymentTermsDays: 366 } }, '/invoiceSettings/paymentTermsDays'],
      ['51 metadata pairs', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, '/metadata'],
      ['an unknown property of the payment method', { defaultPaymentMethod: { provider: 'sandbox', token: 't', cvc: '123' } }, '/defaultPaymentMethod/cvc'],
    ])('422 for %s', async (_label, body, pointer) => {
      const response = await t.request('POST', '/customers', { body });
      expectProblem(response, 422, 'validation-failed', pointer);
      expect(pointersOf(response)).toEqual([pointer]);
    });

    it('invoiceSettings.templateGroupId: one of the environment’s groups is kept; another environment’s or an unknown one is a 404 at its pointer', async () => {
      const own = (await t.request('POST', '/templates', { body: { name: 'Own' } })).body.id;
      const others = (await otherEnvironment(t).request('POST', '/templates', { body: { name: 'Theirs' } })).body.id;
      const pointer = '/invoiceSettings/templateGroupId';
      const kept = await create({ invoiceSettings: { templateGroupId: own } });
      expect(kept.invoiceSettings.templateGroupId).toBe(own);
      for (const foreign of [others, randomUUID()]) {
        expectProblem(await t.request('POST', '/customers', { body: { invoiceSettings: { templateGroupId: foreign } } }), 404, 'not-found', pointer);
        expectProblem(await t.request('PUT', `/customers/${kept.id}`, { body: { invoiceSettings: { templateGroupId: foreign } } }), 404, 'not-found', pointer);
      }
      expect((await t.request('GET', `/customers/${kept.id}`)).body.invoiceSettings.templateGroupId).toBe(own);
      // A malformed id stays a 422, reported with the body's other problems.
      expectProblem(await t.request('POST', '/customers', { body: { invoiceSettings: { templateGroupId: 'nope' } } }), 422, 'validation-failed', pointer);
    });

    it('handles are unique per environment: a taken one is a 409, also when changed to; a released one is free again', async () => {
      await create({ handle: 'acme' });
      expectProblem(await t.request('POST', '/customers', { body: { handle: 'acme' } }), 409, 'customer-handle-taken');
      expect((await otherEnvironment(t).request('POST', '/customers', { body: { handle: 'acme' } })).status).toBe(201);
      const other = await create({ handle: 'beta' });
      expectProblem(await t.request('PUT', `/customers/${other.id}`, { body: { handle: 'acme' } }), 409, 'customer-handle-taken');
      expect((await t.request('PUT', `/customers/${other.id}`, { body: { handle: 'gamma' } })).body.handle).toBe('gamma');
      expect((await t.request('POST', '/customers', { body: { handle: 'beta' } })).status).toBe(201);
    });

    it('PUT is partial (null clears), follows If-Match (stale: 409, malformed: 422) and answers with the new ETag', async () => {
      const customer = await create();
      const updated = await t.request('PUT', `/customers/${customer.id}`, {
        body: { email: null, invoiceSettings: { footer: 'Thanks' } },
        headers: { 'if-match': '"1"' },
      });
      expect(updated.status).toBe(200);
      expect(updated.headers.get('etag')).toBe('"2"');
      expect(updated.body).toEqual({
        ...customer,
        email: null,
        invoiceSettings: { ...customer.invoiceSettings, footer: 'Thanks' },
        updatedAt: '2026-01-20T10:00:00.000Z',
      });
      expectProblem(await t.request('PUT', `/customers/${customer.id}`, { body: { name: 'x' }, headers: { 'if-match': '"1"' } }), 409, 'version-conflict');
      expectProblem(await t.request('PUT', `/customers/${customer.id}`, { body: { name: 'x' }, headers: { 'if-match': 'W/"2"' } }), 409, 'version-conflict');
      expectProblem(
        await t.request('PUT', `/customers/${customer.id}`, { body: { name: 'x' }, headers: { 'if-match': 'soon' } }),
        422,
        'validation-failed',
        '/headers/if-match',
      );
      expectProblem(await t.request('PUT', `/customers/${customer.id}`, { body: { email: 'bad' } }), 422, 'validation-failed', '/email');
      expectProblem(await t.request('PUT', `/customers/${randomUUID()}`, { body: { name: 'x' } }), 404, 'not-found');
    });
  });

  describe('GET /customers', () => {
    it('pages by keyset, filters by email, handle and createdAt, orders, and leaves archived ones out unless asked', async () => {
      const env = otherEnvironment(t);
      const made: { id: string; handle: string }[] = [];
      for (const [i, at] of ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z'].entries()) {
        clock.set(at);
        made.push((await env.request('POST', '/customers', { body: { handle: `h${i}`, email: i === 1 ? 'two@x.example' : 'x@x.example' } })).body);
      }
      clock.set('2026-01-20T10:00:00.000Z');
      const ids: string[] = [];
      let token: string | null = null;
      do {
        const page: { body: { items: { id: string }[]; nextPageToken: string | null } } = await env.request(
          'GET',
          `/customers?limit=2&orderBy=-CreatedAt${token ? `&pageToken=${token}` : ''}`,
        );
        ids.push(...page.body.items.map((item) => item.id));
        token = page.body.nextPageToken;
      } while (token);
      expect(ids).toEqual([made[2].id, made[1].id, made[0].id]);
      const filtered = async (...filters: string[]) =>
        (await env.request('GET', `/customers?${filters.map((f) => `filter=${encodeURIComponent(f)}`).join('&')}`)).body.items.map(
          (c: { handle: string }) => c.handle,
        );
      expect(await filtered('email eq two@x.example')).toEqual(['h1']);
      expect(await filtered('handle ne h1', 'createdAt ge 2026-01-02')).toEqual(['h2']);
      expect((await env.request('GET', '/customers?orderBy=Handle')).body.items.map((c: { handle: string }) => c.handle)).toEqual(['h0', 'h1', 'h2']);
      expect((await env.request('DELETE', `/customers/${made[0].id}`)).status).toBe(200);
      expect(await filtered('createdAt lt 2026-01-02')).toEqual([]);
      expect(await filtered('status eq archived')).toEqual(['h0']);
      expect((await env.request('GET', `/customers/${made[0].id}`)).body).toMatchObject({ status: 'archived', archivedAt: '2026-01-20T10:00:00.000Z' });
    });

    it.each([
      ['filter=nickname eq x', '/query/filter/0'],
      ['filter=email gt x', '/query/filter/0'],
      ['filter=createdAt ge yesterday', '/query/filter/0'],
      ['orderBy=Name', '/query/orderBy'],
      ['limit=0', '/query/limit'],
      ['pageToken=forged', '/query/pageToken'],
      ['sort=Id', '/query/sort'],
    ])('422 for %s', async (query, pointer) => {
      expectProblem(await t.request('GET', `/customers?${query}`), 422, 'validation-failed', pointer);
    });
  });

  describe('invoices made out to a customer record', () => {
    it('a draft shows the customer as it is; booking freezes it and dates it by the payment terms', async () => {
      const customer = await create(full({ handle: 'frozen' }));
      const created = await t.request('POST', '/invoices', { body: { customerId: customer.id, currency: 'EUR', date: '2026-01-20', items: [line] } });
      expect(created.status).toBe(201);
      const snapshot = { id: customer.id, handle: 'frozen', name: 'Acme Oy', email: 'billing@acme.example', billingAddress: customer.billingAddress };
      expect(created.body.customer).toEqual(snapshot);
      await t.request('PUT', `/customers/${customer.id}`, { body: { name: 'Acme Renamed' } });
      expect((await t.request('GET', `/invoices/${created.body.id}`)).body.customer).toEqual({ ...snapshot, name: 'Acme Renamed' });
      const listed = (await t.request('GET', `/invoices?customerId=${customer.id}`)).body.items;
      expect(listed.map((invoice: { customer: { name: string } }) => invoice.customer.name)).toEqual(['Acme Renamed']);

      const booked = await t.request('PUT', `/invoices/${created.body.id}/book`);
      expect(booked.status).toBe(200);
      expect(booked.body).toMatchObject({ status: 'booked', customer: { ...snapshot, name: 'Acme Renamed' }, date: '2026-01-20', dueDate: '2026-02-03' });
      await t.request('PUT', `/customers/${customer.id}`, { body: { name: 'Acme Later', billingAddress: { city: 'Espoo' } } });
      expect((await t.request('GET', `/invoices/${created.body.id}`)).body.customer).toEqual({ ...snapshot, name: 'Acme Renamed' });
    });

    it('422: both customer forms, an unknown, archived or other environment’s customerId', async () => {
      const customer = await create({});
      const body = { currency: 'EUR', items: [line] };
      const both = await t.request('POST', '/invoices', { body: { ...body, customer: inlineCustomer(), customerId: customer.id } });
      expectProblem(both, 422, 'validation-failed');
      expect(pointersOf(both)).toEqual(['/customer', '/customerId']);
      expectProblem(await t.request('POST', '/invoices', { body }), 422, 'validation-failed', '/customer');
      expectProblem(await t.request('POST', '/invoices', { body: { ...body, customerId: randomUUID() } }), 422, 'validation-failed', '/customerId');
      expectProblem(
        await otherEnvironment(t).request('POST', '/invoices', { body: { ...body, customerId: customer.id } }),
        422,
        'validation-failed',
        '/customerId',
      );
      await t.request('DELETE', `/customers/${customer.id}`);
      expectProblem(await t.request('POST', '/invoices', { body: { ...body, customerId: customer.id } }), 422, 'validation-failed', '/customerId');
    });
  });

  describe('DELETE /customers/{id}', () => {
    it('409 customer-in-use while a booked invoice has something due; archived once it is settled; twice is a 409', async () => {
      const customer = await create({});
      const invoice = (await t.request('POST', '/invoices', { body: { customerId: customer.id, currency: 'EUR', date: '2026-01-20', items: [line] } })).body;
      await t.request('PUT', `/invoices/${invoice.id}/book`);
      const refused = await t.request('DELETE', `/customers/${customer.id}`);
      expectProblem(refused, 409, 'customer-in-use');
      expect(refused.body.detail).toContain('booked invoice');
      await t.request('POST', `/invoices/${invoice.id}/settlements`, { body: { date: '2026-01-21', amount: 2000 } });
      const deleted = await t.request('DELETE', `/customers/${customer.id}`, { headers: { 'if-match': '"1"' } });
      expect(deleted.status).toBe(200);
      expect(deleted.headers.get('etag')).toBe('"2"');
      expect(deleted.body).toEqual({ ...customer, status: 'archived', archivedAt: '2026-01-20T10:00:00.000Z', updatedAt: '2026-01-20T10:00:00.000Z' });
      expectProblem(await t.request('DELETE', `/customers/${customer.id}`), 409, 'customer-archived');
      expectProblem(await t.request('PUT', `/customers/${customer.id}`, { body: { name: 'x' } }), 409, 'customer-archived');
    });

    it('a subscription made out to a customer takes its time zone and payment method, and blocks its deletion', async () => {
      const customer = await create(full({ handle: 'subscriber' }));
      const product = (await t.request('POST', '/products', { body: { name: 'Pro' } })).body;
      const price = (
        await t.request('POST', '/prices', {
          body: {
            name: 'Seat',
            priceModel: 'fee',
            pricing: { eur: { unitAmount: 3000 } },
            purchase: 'recurring',
            termCount: 1,
            termUnit: 'month',
            productId: product.id,
          },
        })
      ).body;
      const body = { currency: 'EUR', term: { start: '2026-03-01', end: null }, items: [{ priceId: price.id }] };
      const subscription = await t.request('POST', '/subscriptions', { body: { ...body, customerId: customer.id } });
      expect(subscription.status).toBe(201);
      expect(subscription.body).toMatchObject({
        timeZone: 'Europe/Helsinki',
        paymentMethod: { provider: 'sandbox', tokenHint: 'ss' },
        customer: { id: customer.id, handle: 'subscriber', name: 'Acme Oy', billingAddress: customer.billingAddress },
      });
      const own = await t.request('POST', '/subscriptions', { body: { ...body, customerId: customer.id, timeZone: 'America/New_York' } });
      expect(own.body.timeZone).toBe('America/New_York');
      const both = await t.request('POST', '/subscriptions', { body: { ...body, customerId: customer.id, customer: inlineCustomer() } });
      expectProblem(both, 422, 'validation-failed');
      expect(pointersOf(both)).toEqual(['/customer', '/customerId']);
      expectProblem(await t.request('POST', '/subscriptions', { body: { ...body, customerId: randomUUID() } }), 422, 'validation-failed', '/customerId');
      const refused = await t.request('DELETE', `/customers/${customer.id}`);
      expectProblem(refused, 409, 'customer-in-use');
      expect(refused.body.detail).toContain('subscription');
    });
  });

  it('the token is never shown: not in responses, lists or the event log (history and GET /events)', async () => {
    const customer = await create(full({ defaultPaymentMethod: { provider: 'sandbox', token: 'tok_secret_value_9876' } }));
    await t.request('PUT', `/customers/${customer.id}`, { body: { defaultPaymentMethod: { provider: 'sandbox', token: 'tok_secret_other_5432' } } });
    const answers = [
      await t.request('GET', `/customers/${customer.id}`),
      await t.request('GET', `/customers?limit=100`),
      await t.request('GET', `/customers/${customer.id}/history`),
      await t.request('GET', `/events?resourceType=customer&resourceId=${customer.id}`),
      await t.request('GET', `/customers/${customer.id}?asOf=2026-01-20T10:00:00.000Z`),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toMatch(/tok_secret/);
    }
    expect(
      answers[3].body.items.map((event: { type: string; data: { defaultPaymentMethod: unknown } }) => [event.type, event.data.defaultPaymentMethod]),
    ).toEqual([
      ['CustomerCreated', { provider: 'sandbox', tokenHint: '9876' }],
      ['CustomerUpdated', { provider: 'sandbox', tokenHint: '5432' }],
    ]);
  });

  it("another environment's customer is a 404 everywhere", async () => {
    const customer = await create({});
    const other = otherEnvironment(t);
    expectProblem(await other.request('GET', `/customers/${customer.id}`), 404, 'not-found');
    expectProblem(await other.request('PUT', `/customers/${customer.id}`, { body: { name: 'x' } }), 404, 'not-found');
    expectProblem(await other.request('DELETE', `/customers/${customer.id}`), 404, 'not-found');
    expectProblem(await other.request('GET', `/customers/${customer.id}/history`), 404, 'not-found');
    expect((await other.request('GET', `/customers?filter=${encodeURIComponent(`handle eq ${customer.handle}`)}`)).body.items).toEqual([]);
    expectProblem(await other.request('GET', '/customers/not-a-uuid'), 404, 'not-found');
  });

  it('publishes customer.created, customer.updated and customer.deleted, each carrying the customer as of its event', async () => {
    const customer = await create();
    const updated = (await t.request('PUT', `/customers/${customer.id}`, { body: { name: 'Renamed' } })).body;
    const deleted = (await t.request('DELETE', `/customers/${customer.id}`)).body;
    const events = await t.app.get(EventStore).readStream({ environmentId: t.environmentId, streamType: 'customer', streamId: customer.id });
    const catalogue = t.app.get(NotificationCatalogue);
    expect(events.map((event) => catalogue.namesFor(event))).toEqual([['customer.created'], ['customer.updated'], ['customer.deleted']]);
    expect(await Promise.all(events.map((event) => catalogue.resourceAt(event)))).toEqual([customer, updated, deleted]);
  });
});
