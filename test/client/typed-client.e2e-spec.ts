import { randomUUID } from 'node:crypto';
import { BillingClient } from '@billing/client';
import { eventually, startTestApp, TestApp } from '@billing/testing';
import { typedClient } from '@billing/testing/typed-client';
import { createSelfSignedCertificate, Receiver, TestCertificate, verifySignatureMember } from '../webhooks/webhook-test-kit';

/** The README's tour and two more flows, written as an API consumer writes them: with the typed client alone. */
describe('the typed client (@billing/client) over HTTP', () => {
  let t: TestApp;
  let certificate: TestCertificate;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CA_FILE: certificate.certFile, WEBHOOK_TIMEOUT_MS: '2000' } });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await t.close();
    certificate.remove();
  });

  /** A fresh environment, so flows do not see each other's resources or notifications. */
  const freshClient = (): BillingClient => typedClient(t, randomUUID());

  async function monthlyPlan(client: BillingClient): Promise<string> {
    const product = await client.POST('/products', { body: { name: 'Pro plan' } });
    const price = await client.POST('/prices', {
      body: {
        name: 'Pro monthly',
        productId: product.data!.id,
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        priceModel: 'fee',
        pricing: { eur: { unitAmount: 2_900 } },
      },
    });
    expect(price.response.status).toBe(201);
    return price.data!.id;
  }

  it('the tour: a subscription billed a month later, charged, settled, and every step signed to the receiver', async () => {
    const client = freshClient();
    const receiver = await new Receiver(certificate).start();
    receivers.push(receiver);
    const subscribed = await client.PUT('/webhooks/subscribe', { body: { url: receiver.url() } });
    const signatureKey = subscribed.data!.signatureKey;
    await client.POST('/test-clock/advance', { body: { to: '2027-03-01T09:00:00Z' } });
    await client.POST('/paymentproviders/enable', { body: { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_tour' } } });
    const priceId = await monthlyPlan(client);
    const customer = await client.POST('/customers', { body: { name: 'Ada Lovelace', email: 'ada@example.com' } });
    const subscription = await client.POST('/subscriptions', {
      body: {
        customerId: customer.data!.id,
        currency: 'eur',
        term: { start: '2027-03-01', end: null },
        items: [{ priceId, quantity: 1 }],
        paymentMethod: { provider: 'sandbox', token: 'tok_success' },
      },
    });
    expect(subscription.data).toMatchObject({ status: 'active', paymentMethod: { provider: 'sandbox', tokenHint: expect.any(String) } });

    const advanced = await client.POST('/test-clock/advance', { body: { to: '2027-04-02T09:00:00Z' } });
    expect(advanced.error ?? advanced.data).toEqual({ now: '2027-04-02T09:00:00.000Z' });
    // The advance answered after the due work, the first collection tries and their settlements included: no waiting.
    const invoices = (await client.GET('/invoices', { params: { query: { limit: 5 } } })).data!.items;
    expect(invoices.map((invoice) => invoice.settlementStatus)).toEqual(['settled', 'settled']);
    // Both were made by one advance, at one instant: in number order.
    const byNumber = invoices
      .map(({ handle, totalDue, date }) => ({ handle, totalDue, date }))
      .sort((a, b) => String(a.handle).localeCompare(String(b.handle)));
    expect(byNumber).toEqual([
      { handle: 'INV-000001', totalDue: 0, date: '2027-03-01' },
      { handle: 'INV-000002', totalDue: 0, date: '2027-04-01' },
    ]);
    const payments = (await client.GET('/payments', {})).data!.items;
    expect(payments.map(({ status, amount }) => ({ status, amount }))).toEqual([
      { status: 'succeeded', amount: 2_900 },
      { status: 'succeeded', amount: 2_900 },
    ]);

    const received = await eventually(
      async () => receiver.requests.map((request) => JSON.parse(request.rawBody) as { type: string }).map(({ type }) => type),
      (types) => types.filter((type) => type === 'invoice.settled').length === 2,
      { what: 'both invoice.settled notifications' },
    );
    expect(received).toEqual(expect.arrayContaining(['customer.created', 'subscription.created', 'invoice.booked', 'payment.succeeded']));
    expect(receiver.requests.every((request) => verifySignatureMember(request.rawBody, signatureKey))).toBe(true);
  });

  it('an invoice: drafted, booked, paid and partly refunded, each answer typed', async () => {
    const client = freshClient();
    await client.POST('/paymentproviders/enable', { body: { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_invoice' } } });
    const draft = await client.POST('/invoices', {
      body: {
        customer: { id: randomUUID(), handle: 'acme', name: 'Acme Oy' },
        currency: 'EUR',
        items: [{ title: 'Consulting', quantity: 3, unitAmount: 12_000 }],
      },
    });
    expect(draft.data).toMatchObject({ status: 'draft', totalExclVat: 36_000 });
    const invoiceId = draft.data!.id;
    const booked = await client.PUT('/invoices/{invoiceId}/book', { params: { path: { invoiceId } }, body: {} });
    expect(booked.data).toMatchObject({ status: 'booked', handle: 'INV-000001', totalDue: 36_000 });
    const paid = await client.POST('/payments', { body: { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } } });
    expect(paid.data).toMatchObject({ status: 'succeeded', amount: 36_000 });
    const paymentId = paid.data!.id;
    const refunded = await client.PUT('/payments/{paymentId}/refund', { params: { path: { paymentId } }, body: { amount: 6_000 } });
    expect(refunded.data).toMatchObject({ refundedAmount: 6_000, refunds: [expect.objectContaining({ amount: 6_000, status: 'succeeded' })] });
    const settled = await eventually(
      async () => (await client.GET('/invoices/{invoiceId}', { params: { path: { invoiceId } } })).data!,
      (invoice) => invoice.settlementStatus !== 'not_settled',
      { what: 'the payment settled on the invoice' },
    );
    expect(settled).toMatchObject({ totalDue: 0, settlements: [expect.objectContaining({ amount: 36_000, reference: paymentId })] });
  });

  it('errors arrive as typed problem documents: a pointer, another environment, a stale version', async () => {
    const client = freshClient();
    const invalid = await client.POST('/customers', { body: { email: 'not an address' } });
    expect(invalid.response.status).toBe(422);
    expect(invalid.error).toMatchObject({ type: '/problems/validation-failed', errors: [expect.objectContaining({ pointer: '/email' })] });

    const customer = await client.POST('/customers', { body: { name: 'Grace Hopper' } });
    const customerId = customer.data!.id;
    const elsewhere = await freshClient().GET('/customers/{customerId}', { params: { path: { customerId } } });
    expect(elsewhere.response.status).toBe(404);
    expect(elsewhere.error).toMatchObject({ status: 404 });

    const renamed = await client.PUT('/customers/{customerId}', { params: { path: { customerId } }, body: { name: 'Grace B. Hopper' } });
    expect(renamed.response.headers.get('etag')).toBe('"2"');
    const stale = await client.PUT('/customers/{customerId}', {
      params: { path: { customerId }, header: { 'if-match': '"1"' } },
      body: { name: 'Rear Admiral Hopper' },
    });
    expect(stale.response.status).toBe(409);
    expect(stale.error).toMatchObject({ type: '/problems/version-conflict' });
  });
});
