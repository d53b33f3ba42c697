import { randomUUID } from 'node:crypto';
import { environmentCall, EnvironmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { createSelfSignedCertificate, Receiver, TestCertificate } from '../webhooks/webhook-test-kit';
import { customer, expectReadModelMatchesStream, otherEnvironment } from './invoicing-helpers';

/**
 * PUT /invoices/{id}/void and /mark-uncollectible over HTTP: who may be voided
 * (a booked invoice nothing settled), the number kept, what a void invoice
 * refuses, the uncollectible mark cleared by a payment that settles it, the
 * If-Match and another environment's rules, and the notifications delivered.
 * Dunning stopping is in test/payments/void-uncollectible-dunning.e2e-spec.ts.
 */
describe('Void and uncollectible invoices over HTTP', () => {
  const clock = new FakeClock(new Date('2026-01-15T10:00:00.000Z'));
  let t: TestApp;
  let certificate: TestCertificate;
  let receiver: Receiver;

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    t = await startTestApp({
      clock,
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_INSECURE_HTTP: 'false', WEBHOOK_CA_FILE: certificate.certFile, WEBHOOK_TIMEOUT_MS: '2000' },
    });
    receiver = await new Receiver(certificate).start();
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
    certificate.remove();
  });

  /** A fresh environment (its own number sequence). */
  function environment(): { id: string; call: EnvironmentCall } {
    const id = randomUUID();
    return { id, call: environmentCall(t, id) };
  }

  async function bookedInvoice(call: EnvironmentCall, unitAmount = 1000): Promise<any> {
    const draft = await call('POST', '/invoices', { customer: customer(), currency: 'EUR', items: [{ quantity: 2, unitAmount }] }, 201);
    return (await call('PUT', `/invoices/${draft.body.id}/book`, undefined, 200)).body;
  }

  it('voids a booked, unpaid invoice: status void, its number kept, nothing due; the next booking takes the next number', async () => {
    const { id, call } = environment();
    const first = await bookedInvoice(call);
    const second = await bookedInvoice(call);
    expect([first.handle, second.handle]).toEqual(['INV-000001', 'INV-000002']);

    const voided = await call('PUT', `/invoices/${second.id}/void`, undefined, 200);
    expect(voided.body).toMatchObject({ id: second.id, status: 'void', handle: 'INV-000002', totalInclVat: 2000, totalDue: 0, uncollectible: false });
    expect(voided.headers.get('etag')).toBe('"3"');
    await expectReadModelMatchesStream(t, second.id, id, t.token([id]));
    expect((await call('GET', '/invoices?status=void', undefined, 200)).body.items.map((item: any) => item.id)).toEqual([second.id]);

    // The sequence stays gapless: the void invoice keeps INV-000002, the next booking is INV-000003.
    expect((await bookedInvoice(call)).handle).toBe('INV-000003');

    // Again: the same answer, nothing recorded.
    const again = await call('PUT', `/invoices/${second.id}/void`, {}, 200);
    expect(again.body).toEqual(voided.body);
    expect(again.headers.get('etag')).toBe('"3"');
  });

  it('a void invoice takes no settlement, no payment, no credit note and no uncollectible mark; it can be copied into a new draft', async () => {
    const { call } = environment();
    const invoice = await bookedInvoice(call);
    await call('PUT', `/invoices/${invoice.id}/void`, undefined, 200);
    expectProblem(await call('POST', `/invoices/${invoice.id}/settlements`, { date: '2026-01-16', amount: 100 }), 409, 'invoice-void');
    expectProblem(await call('POST', `/invoices/${invoice.id}/duplicate`, { reverse: true }), 409, 'invoice-void');
    expectProblem(await call('PUT', `/invoices/${invoice.id}/mark-uncollectible`), 409, 'invoice-void');
    await call('POST', '/paymentproviders/enable', { name: 'manual', credentials: null }, 200);
    const payment = await call('POST', '/payments', { invoiceId: invoice.id, paymentMethod: { provider: 'manual', token: 'transfer-1' } });
    expectProblem(payment, 422, 'invoice-not-payable', '/invoiceId');
    const copy = await call('POST', `/invoices/${invoice.id}/duplicate`, { reverse: false }, 200);
    expect(copy.body).toMatchObject({ status: 'draft', totalInclVat: 2000, uncollectible: false });
  });

  it('refuses to void a paid, a partly paid or a refunded invoice (409 invoice-paid), a draft (409 invoice-not-booked) and a credit note', async () => {
    const { call } = environment();
    for (const amounts of [[2000], [500], [2000, -2000]]) {
      const invoice = await bookedInvoice(call);
      for (const amount of amounts) await call('POST', `/invoices/${invoice.id}/settlements`, { date: '2026-01-16', amount }, 201);
      const refused = await call('PUT', `/invoices/${invoice.id}/void`);
      expectProblem(refused, 409, 'invoice-paid');
      expect(refused.body.detail).toContain('credit it instead');
      expect((await call('GET', `/invoices/${invoice.id}`, undefined, 200)).body.status).toBe('booked');
    }
    const draft = await call('POST', '/invoices', { customer: customer(), currency: 'EUR', items: [{ quantity: 1, unitAmount: 100 }] }, 201);
    expectProblem(await call('PUT', `/invoices/${draft.body.id}/void`), 409, 'invoice-not-booked');
    expectProblem(await call('PUT', `/invoices/${draft.body.id}/mark-uncollectible`), 409, 'invoice-not-booked');

    const credited = await bookedInvoice(call);
    const creditNote = await call('POST', `/invoices/${credited.id}/duplicate`, { reverse: true }, 200);
    await call('PUT', `/invoices/${creditNote.body.id}/book`, undefined, 200);
    expectProblem(await call('PUT', `/invoices/${creditNote.body.id}/void`), 409, 'invoice-is-credit-note');
    expectProblem(await call('PUT', `/invoices/${creditNote.body.id}/mark-uncollectible`), 409, 'invoice-is-credit-note');
    // The credited invoice has a credit note applied: credit, not void.
    expectProblem(await call('PUT', `/invoices/${credited.id}/void`), 409, 'invoice-paid');
  });

  it('refuses to void an invoice while a payment of it waits for its outcome (409 invoice-payment-under-way): money may be taken', async () => {
    const { call } = environment();
    const invoice = await bookedInvoice(call);
    await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_void_test' } }, 200);
    // The sandbox charges a timeout token but answers "unknown": the payment stays pending until it is looked up.
    const payment = await call('POST', '/payments', { invoiceId: invoice.id, paymentMethod: { provider: 'sandbox', token: 'tok_timeout' } });
    expect(payment.body.status).toBe('pending');
    const refused = await call('PUT', `/invoices/${invoice.id}/void`);
    expectProblem(refused, 409, 'invoice-payment-under-way');
    expect((await call('GET', `/invoices/${invoice.id}`, undefined, 200)).body.status).toBe('booked');
  });

  it('marks an invoice uncollectible: still payable, and a later payment that settles it clears the mark', async () => {
    const { call } = environment();
    const invoice = await bookedInvoice(call);
    await call('POST', `/invoices/${invoice.id}/settlements`, { date: '2026-01-16', amount: 500 }, 201);
    const marked = await call('PUT', `/invoices/${invoice.id}/mark-uncollectible`, {}, 200);
    expect(marked.body).toMatchObject({ status: 'booked', uncollectible: true, totalDue: 1500, settlementStatus: 'under_settled' });
    const again = await call('PUT', `/invoices/${invoice.id}/mark-uncollectible`, undefined, 200);
    expect(again.headers.get('etag')).toBe(marked.headers.get('etag'));

    await call('POST', '/paymentproviders/enable', { name: 'manual', credentials: null }, 200);
    await call('POST', '/payments', { invoiceId: invoice.id, paymentMethod: { provider: 'manual', token: 'transfer-1' } }, 201);
    const settled = await eventually(
      async () => (await call('GET', `/invoices/${invoice.id}`, undefined, 200)).body,
      (body) => body.settlementStatus === 'settled',
      { what: 'the payment settling the invoice' },
    );
    expect(settled).toMatchObject({ status: 'booked', totalDue: 0, uncollectible: false });
    expectProblem(await call('PUT', `/invoices/${invoice.id}/mark-uncollectible`), 409, 'invoice-nothing-due');
  });

  it('honours If-Match like the other invoice PUTs: a stale one is a 409, a malformed one a 422; a body with members is a 422', async () => {
    const { call, id } = environment();
    const invoice = await bookedInvoice(call);
    const as = { environment: id, token: t.token([id]) };
    for (const action of ['void', 'mark-uncollectible']) {
      expectProblem(await t.request('PUT', `/invoices/${invoice.id}/${action}`, { ...as, headers: { 'if-match': '"1"' } }), 409, 'version-conflict');
      expectProblem(
        await t.request('PUT', `/invoices/${invoice.id}/${action}`, { ...as, headers: { 'if-match': 'abc' } }),
        422,
        'validation-failed',
        '/headers/if-match',
      );
      expectProblem(await call('PUT', `/invoices/${invoice.id}/${action}`, { reason: 'x' }), 422, 'validation-failed', '/reason');
    }
    const marked = await t.request('PUT', `/invoices/${invoice.id}/mark-uncollectible`, { ...as, headers: { 'if-match': '"2"' } });
    expect(marked.status).toBe(200);
    const voided = await t.request('PUT', `/invoices/${invoice.id}/void`, { ...as, headers: { 'if-match': '"3"' } });
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ status: 'void', uncollectible: false });
  });

  it("answers 404 for another environment's invoice and an unknown one", async () => {
    const { call } = environment();
    const invoice = await bookedInvoice(call);
    const other = otherEnvironment(t);
    for (const action of ['void', 'mark-uncollectible']) {
      expectProblem(await other.request('PUT', `/invoices/${invoice.id}/${action}`), 404, 'not-found');
      expectProblem(await call('PUT', `/invoices/${randomUUID()}/${action}`), 404, 'not-found');
      expectProblem(await call('PUT', `/invoices/not-a-uuid/${action}`), 404, 'not-found');
    }
    expect((await call('GET', `/invoices/${invoice.id}`, undefined, 200)).body).toMatchObject({ status: 'booked', uncollectible: false });
  });

  it('delivers invoice.marked_uncollectible and invoice.voided, each with the invoice as of its event', async () => {
    const { call } = environment();
    await call('PUT', '/webhooks/subscribe', { url: receiver.url('/void-uncollectible') }, 200);
    const invoice = await bookedInvoice(call, 700);
    await call('PUT', `/invoices/${invoice.id}/mark-uncollectible`, undefined, 200);
    await call('PUT', `/invoices/${invoice.id}/void`, undefined, 200);
    const sent = await eventually(
      async () =>
        receiver.requests
          .filter((request) => request.path === '/void-uncollectible')
          .map((request) => JSON.parse(request.rawBody))
          .filter((body) => body.data?.id === invoice.id),
      (bodies) => ['invoice.marked_uncollectible', 'invoice.voided'].every((type) => bodies.some((body) => body.type === type)),
      { what: 'both notifications delivered', timeoutMs: 10_000 },
    );
    const byType = new Map(sent.map((body) => [body.type, body]));
    expect(byType.get('invoice.marked_uncollectible')?.data).toMatchObject({ status: 'booked', uncollectible: true, totalDue: 1400 });
    expect(byType.get('invoice.voided')?.data).toMatchObject({ status: 'void', uncollectible: false, totalDue: 0, handle: invoice.handle });
  });
});
