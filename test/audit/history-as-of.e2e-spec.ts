import { randomUUID } from 'node:crypto';
import { expectProblem, FakeClock, startTestApp, TestApp, TestResponse } from '@billing/testing';

/**
 * History and as-of reads over HTTP for every resource type: each resource is
 * created at one instant and changed at a later one; GET /{path}/{id}/history
 * lists its events with actor and request id, `?asOf=` between the two
 * instants answers the resource as first created, after both the current
 * resource, and before the first a 404. Another environment's token sees
 * none of it (404), a token without the environment is refused (403).
 */
describe('History and as-of reads', () => {
  const T0 = '2026-01-15T10:00:00.000Z';
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { TEST_CLOCKS: 'false' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function ok(method: string, path: string, body: unknown, expected: number, headers?: Record<string, string>): Promise<TestResponse> {
    const response = await t.request(method, path, { body, headers });
    if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
    return response;
  }

  /** The instants each resource is examined at: before it existed, after its creation, after its change. */
  const BEFORE = '2026-01-15T09:59:59.999Z';
  const CREATED = '2026-01-15T10:00:00.000Z';
  const BETWEEN = '2026-01-15T11:00:00.000Z';
  const CHANGED = '2026-01-15T12:00:00.000Z';

  /** Runs `create` at CREATED and `change` at CHANGED, reading GET /{path}/{id} after each (when the route exists). */
  async function createThenChange(path: string, create: () => Promise<string>, change: (id: string) => Promise<void>, readable = true) {
    clock.set(CREATED);
    const id = await create();
    const first = readable ? await ok('GET', `/${path}/${encodeURIComponent(id)}`, undefined, 200) : null;
    clock.set(CHANGED);
    await change(id);
    const second = readable ? await ok('GET', `/${path}/${encodeURIComponent(id)}`, undefined, 200) : null;
    return { id, first, second };
  }

  const bookedInvoice = async (amount: number) => {
    const created = await ok(
      'POST',
      '/invoices',
      { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' }, currency: 'EUR', items: [{ title: 'Plan', quantity: 1, unitAmount: amount }] },
      201,
    );
    await ok('PUT', `/invoices/${created.body.id}/book`, {}, 200);
    return created.body.id as string;
  };

  const cases: Record<string, { path: string; resourceType: string; types: string[]; run: () => ReturnType<typeof createThenChange> }> = {
    invoice: {
      path: 'invoices',
      resourceType: 'invoice',
      types: ['InvoiceCreated', 'InvoiceBooked'],
      run: () =>
        createThenChange(
          'invoices',
          async () =>
            (
              await ok(
                'POST',
                '/invoices',
                { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' }, currency: 'EUR', items: [{ title: 'Plan', quantity: 2, unitAmount: 700 }] },
                201,
              )
            ).body.id,
          async (id) => void (await ok('PUT', `/invoices/${id}/book`, {}, 200)),
        ),
    },
    'tax code': {
      path: 'tax-codes',
      resourceType: 'tax_code',
      types: ['TaxCodeCreated', 'TaxCodeUpdated'],
      run: () =>
        createThenChange(
          'tax-codes',
          async () => (await ok('POST', '/tax-codes', { code: `VAT-${randomUUID().slice(0, 8)}`, rate: 0.24, taxable: true }, 201)).body.code,
          async (code) => void (await ok('PUT', `/tax-codes/${code}`, { rate: 0.255 }, 200)),
        ),
    },
    price: {
      path: 'prices',
      resourceType: 'price',
      types: ['PriceCreated', 'PriceUpdated'],
      run: () =>
        createThenChange(
          'prices',
          async () =>
            (
              await ok(
                'POST',
                '/prices',
                { name: 'Pro', priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit: 'month', pricing: { eur: { unitAmount: 1500 } } },
                201,
              )
            ).body.id,
          async (id) => void (await ok('PUT', `/prices/${id}`, { name: 'Pro plus' }, 200)),
        ),
    },
    product: {
      path: 'products',
      resourceType: 'product',
      types: ['ProductCreated'],
      run: () =>
        createThenChange(
          'products',
          async () => (await ok('POST', '/products', { name: 'Widgets' }, 201)).body.id,
          async () => undefined,
        ),
    },
    subscription: {
      path: 'subscriptions',
      resourceType: 'subscription',
      types: ['SubscriptionCreated', 'SubscriptionCancelled'],
      run: async () => {
        clock.set(CREATED);
        const productId = (await ok('POST', '/products', { name: 'Plans' }, 201)).body.id;
        const price = (
          await ok(
            'POST',
            '/prices',
            { productId, name: 'Pro', priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit: 'month', pricing: { eur: { unitAmount: 1500 } } },
            201,
          )
        ).body.id;
        return createThenChange(
          'subscriptions',
          async () =>
            (
              await ok(
                'POST',
                '/subscriptions',
                {
                  customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' },
                  currency: 'EUR',
                  term: { start: '2026-03-01', end: null },
                  items: [{ priceId: price }],
                },
                201,
              )
            ).body.id,
          async (id) => void (await ok('PUT', `/subscriptions/${id}/cancel`, {}, 202)),
        );
      },
    },
    payment: {
      path: 'payments',
      resourceType: 'payment',
      types: ['PaymentCreated', 'PaymentSucceeded', 'PaymentRefundRequested', 'PaymentRefunded'],
      run: async () => {
        clock.set(CREATED);
        await ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: `sk_sandbox_${randomUUID().replace(/-/g, '')}` } }, 200);
        const invoiceId = await bookedInvoice(5000);
        return createThenChange(
          'payments',
          async () => (await ok('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201)).body.id,
          async (id) => void (await ok('PUT', `/payments/${id}/refund`, { amount: 1000 }, 200)),
        );
      },
    },
    'billable metric': {
      path: 'billable-metrics',
      resourceType: 'billable_metric',
      types: ['BillableMetricCreated'],
      run: () =>
        createThenChange(
          'billable-metrics',
          async () =>
            (
              await ok(
                'POST',
                '/billable-metrics',
                { code: `api_calls_${randomUUID().slice(0, 8)}`, name: 'API calls', aggregation: 'sum', field: 'calls' },
                201,
              )
            ).body.code,
          async () => undefined,
        ),
    },
    'template group': {
      path: 'templates',
      resourceType: 'template_group',
      types: ['TemplateGroupCreated', 'TemplateGroupUpdated'],
      run: () =>
        createThenChange(
          'templates',
          async () => (await ok('POST', '/templates', { name: 'Nordic' }, 201)).body.id,
          async (id) => {
            await ok('PUT', `/templates/${id}`, { name: 'Nordic (fi)', locale: 'fi' }, 200);
            // isDefault lives on the environment's default-group stream: as-of reads fold it to the same instant.
            await ok('PUT', `/templates/${id}/default`, {}, 200);
          },
        ),
    },
  };

  it.each(Object.keys(cases))('%s: history with actor and request id, and GET ?asOf= before, between and after its changes', async (name) => {
    const { path, resourceType, types, run } = cases[name];
    const { id, first, second } = await run();
    const encoded = encodeURIComponent(id);

    const history = await ok('GET', `/${path}/${encoded}/history`, undefined, 200);
    expect(history.body.items.map((item: { type: string }) => item.type)).toEqual(types);
    expect(history.body.nextPageToken).toBeNull();
    for (const [index, item] of (history.body.items as any[]).entries()) {
      expect(item).toMatchObject({
        resource: { type: resourceType },
        version: index + 1,
        actor: 'test-user',
        requestId: expect.any(String),
        correlationId: expect.any(String),
      });
      expect(item.position).toBeGreaterThan(index === 0 ? 0 : history.body.items[index - 1].position);
    }
    expect(history.body.items[0].occurredAt).toBe(CREATED);

    expectProblem(await t.request('GET', `/${path}/${encoded}?asOf=${BEFORE}`), 404, 'not-found');
    const between = await ok('GET', `/${path}/${encoded}?asOf=${encodeURIComponent(BETWEEN)}`, undefined, 200);
    const after = await ok('GET', `/${path}/${encoded}?asOf=2026-01-15T12:00:00Z`, undefined, 200);
    // Created and then changed: as of between, the resource as it was created (with its version then as the ETag); as of now, as it is.
    // An as-of answer has exactly the members of the live one, whatever the resource.
    expect(Object.keys(between.body).sort()).toEqual(Object.keys(first!.body).sort());
    expect(Object.keys(after.body).sort()).toEqual(Object.keys(second!.body).sort());
    if (types.length > 1 && name !== 'payment') {
      expect(between.body).toEqual(withLinkOf(first!.body, second!.body));
      expect(between.headers.get('etag')).toBe(first!.headers.get('etag'));
    }
    expect(after.body).toEqual(second!.body);
    expect(after.headers.get('etag')).toBe(second!.headers.get('etag'));
    // An offset is the same instant.
    expect((await ok('GET', `/${path}/${encoded}?asOf=${encodeURIComponent('2026-01-15T12:00:00+01:00')}`, undefined, 200)).body).toEqual(between.body);
  });

  it('an invoice as of before its link was rotated: the link it has now (the old one opens nothing), and null while it is a draft now', async () => {
    clock.set(CREATED);
    const booked = await bookedInvoice(1200);
    const before = await ok('GET', `/invoices/${booked}`, undefined, 200);
    clock.set(CHANGED);
    const rotated = await ok('PUT', `/invoices/${booked}/hosted-link/rotate`, {}, 200);
    expect(rotated.body.hostedInvoiceUrl).not.toBe(before.body.hostedInvoiceUrl);
    const asOf = await ok('GET', `/invoices/${booked}?asOf=${BETWEEN}`, undefined, 200);
    expect(asOf.body).toEqual({ ...before.body, hostedInvoiceUrl: rotated.body.hostedInvoiceUrl });
    const draft = await ok('POST', '/invoices', { customer: { id: randomUUID(), handle: 'C-2', name: 'Beta' }, currency: 'EUR' }, 201);
    expect((await ok('GET', `/invoices/${draft.body.id}?asOf=${CHANGED}`, undefined, 200)).body).toEqual(draft.body);
  });

  it('a payment as of between its creation and its refund: succeeded, nothing refunded yet', async () => {
    const { id, second } = await cases.payment.run();
    const between = await ok('GET', `/payments/${id}?asOf=${BETWEEN}`, undefined, 200);
    expect(between.body).toMatchObject({ id, status: 'succeeded', refundedAmount: 0 });
    expect(second!.body.refundedAmount).toBe(1000);
  });

  it('webhook subscriptions: history with the signature key redacted', async () => {
    clock.set(CREATED);
    const subscribed = await ok('PUT', '/webhooks/subscribe', { url: 'https://hooks.example.com/billing' }, 200);
    clock.set(CHANGED);
    await ok('PUT', `/webhooks/${subscribed.body.id}/rotate-key`, {}, 200);
    const history = await ok('GET', `/webhooks/${subscribed.body.id}/history`, undefined, 200);
    expect(history.body.items.map((item: { type: string; data: unknown }) => [item.type, item.data])).toEqual([
      ['WebhookSubscribed', expect.objectContaining({ url: 'https://hooks.example.com/billing', encryptedSignatureKey: '[redacted]' })],
      ['WebhookSignatureKeyRotated', { encryptedSignatureKey: '[redacted]' }],
    ]);
    expect(history.body.items[0].resource).toEqual({ type: 'webhook_subscription', id: subscribed.body.id });
  });

  it('asOf: a 422 at /query/asOf when malformed, other parameters refused beside it; history: unknown ids are a 404, paging works', async () => {
    clock.set(CREATED);
    const id = (await ok('POST', '/products', { name: 'Gadgets' }, 201)).body.id;
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-15T10:00:00', '']) {
      expectProblem(await t.request('GET', `/products/${id}?asOf=${encodeURIComponent(bad)}`), 422, 'validation-failed', '/query/asOf');
    }
    expectProblem(await t.request('GET', `/products/${id}?asOf=${T0}&asOf=${T0}`), 422, 'validation-failed', '/query/asOf');
    expectProblem(await t.request('GET', `/products/${id}?asOf=${T0}&expand=all`), 422, 'validation-failed', '/query/expand');
    expectProblem(await t.request('GET', `/products/${randomUUID()}?asOf=${T0}`), 404, 'not-found');
    expectProblem(await t.request('GET', `/products/not-a-uuid?asOf=${T0}`), 404, 'not-found');
    expectProblem(await t.request('GET', `/products/${randomUUID()}/history`), 404, 'not-found');
    expectProblem(await t.request('GET', `/tax-codes/NOPE/history`), 404, 'not-found');
    expectProblem(await t.request('GET', `/products/${id}/history?since=1`), 422, 'validation-failed', '/query/since');
    // Paging a history: one event per page until the last.
    const priceId = (await cases.price.run()).id;
    const page1 = await ok('GET', `/prices/${priceId}/history?limit=1`, undefined, 200);
    expect(page1.body.items).toHaveLength(1);
    const page2 = await ok('GET', `/prices/${priceId}/history?limit=1&pageToken=${page1.body.nextPageToken}`, undefined, 200);
    expect(page2.body.items.map((item: { type: string }) => item.type)).toEqual(['PriceUpdated']);
    expect(page2.body.nextPageToken).toBeNull();
  });

  it('the OpenAPI document: asOf on every single-resource GET, a history route per resource, the audit routes', async () => {
    const document = (await ok('GET', '/openapi.json', undefined, 200)).body;
    const singles = [
      '/invoices/{invoiceId}',
      '/tax-codes/{code}',
      '/prices/{priceId}',
      '/products/{productId}',
      '/payments/{paymentId}',
      '/subscriptions/{subscriptionId}',
    ];
    for (const path of singles) {
      expect(document.paths[path]?.get?.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'asOf', in: 'query', required: false })]));
    }
    for (const path of ['invoices', 'tax-codes', 'prices', 'products', 'payments', 'subscriptions', 'webhooks']) {
      expect(document.paths[`/${path}/{id}/history`]?.get?.responses).toEqual(expect.objectContaining({ '200': expect.anything(), '404': expect.anything() }));
    }
    for (const path of ['/events', '/events/export', '/audit/verify', '/audit/head', '/audit/public-key']) expect(document.paths[path]?.get).toBeDefined();
    expect(document.paths['/events/export'].get.responses['200'].content).toHaveProperty(['application/x-ndjson']);
  });

  it("another environment's token: 404 on every history and as-of read; a token without the environment: 403", async () => {
    const invoice = await cases.invoice.run();
    const taxCode = await cases['tax code'].run();
    const price = await cases.price.run();
    const product = await cases.product.run();
    const payment = await cases.payment.run();
    const subscription = await cases.subscription.run();
    const webhook = (await ok('PUT', '/webhooks/subscribe', { url: 'https://hooks.example.com/other' }, 200)).body.id;
    const other = randomUUID();
    const otherToken = t.token([other]);
    const reads = [
      `/invoices/${invoice.id}`,
      `/tax-codes/${taxCode.id}`,
      `/prices/${price.id}`,
      `/products/${product.id}`,
      `/payments/${payment.id}`,
      `/subscriptions/${subscription.id}`,
    ];
    for (const path of [...reads.map((p) => `${p}?asOf=${CHANGED}`), ...[...reads, `/webhooks/${webhook}`].map((p) => `${p}/history`)]) {
      expectProblem(await t.request('GET', path, { environment: other, token: otherToken }), 404, 'not-found');
      expect((await t.request('GET', path, { token: otherToken })).status).toBe(403);
      expect((await t.request('GET', path)).status).toBe(200);
    }
  });
});

/** An invoice's hosted page link is the one it has now in `?asOf=` answers too (README, Hosted invoice page). */
function withLinkOf(then: Record<string, unknown>, now: Record<string, unknown>): Record<string, unknown> {
  return 'hostedInvoiceUrl' in then ? { ...then, hostedInvoiceUrl: now.hostedInvoiceUrl } : then;
}
