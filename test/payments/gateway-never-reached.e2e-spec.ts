import { randomBytes, randomUUID } from 'node:crypto';
import { PaymentGateways } from '@billing/payments';
import { environmentCall, eventually, startTestApp, TestApp } from '@billing/testing';
import { STRIPE_TEST_METHODS as PM, StripeTestServer } from './stripe-test-server';

/**
 * Issue 41, item 12: a payment recorded pending whose charge never reached the
 * gateway (the process died between the two; here the adapter's charge fails
 * before it does anything, which the flow cannot tell from a lost answer) is
 * charged by the resolver under the same reference once its wait is over: no
 * failure recorded, no payment.failed, no day lost to a dunning retry. The
 * kill -9 of the same case: test/processes/payments-crash.e2e-spec.ts.
 */
describe('A charge the gateway never saw', () => {
  const server = new StripeTestServer();
  const RESOLVE_AFTER_MS = 1_500;
  let t: TestApp;

  beforeAll(async () => {
    const base = await server.start();
    t = await startTestApp({ env: { STRIPE_API_BASE: base, STRIPE_TIMEOUT_MS: '400', PAYMENTS_RESOLVE_AFTER_MS: String(RESOLVE_AFTER_MS) } });
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  /** Pays a fresh invoice of `amount` with the provider's charge never reaching the gateway; answers the pending payment. */
  async function payingUnreached(provider: { name: string; credentials: object }, token: string, amount: number) {
    const id = randomUUID();
    const call = environmentCall(t, id);
    await call('POST', '/paymentproviders/enable', provider, 200);
    const created = await call(
      'POST',
      '/invoices',
      { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' }, currency: 'EUR', items: [{ title: 'Plan', quantity: 1, unitAmount: amount }] },
      201,
    );
    await call('PUT', `/invoices/${created.body.id}/book`, {}, 200);
    const gateway = t.app.get(PaymentGateways).get(provider.name as 'sandbox' | 'stripe');
    jest.spyOn(gateway, 'charge').mockRejectedValueOnce(new Error('the process died before the gateway was called'));
    const pending = await call('POST', '/payments', { invoiceId: created.body.id, paymentMethod: { provider: provider.name, token } }, 201);
    expect(pending.body.status).toBe('pending');
    const resolved = await eventually(
      async () => (await call('GET', `/payments/${pending.body.id}`, undefined, 200)).body,
      (payment) => payment.status !== 'pending',
      { what: 'the payment resolved' },
    );
    const invoice = await eventually(
      async () => (await call('GET', `/invoices/${created.body.id}`, undefined, 200)).body,
      (read) => read.totalDue === 0,
      { what: 'the invoice settled' },
    );
    const [failed] = await t.dataSource.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'PaymentFailed'`, [id]);
    return { id, payment: resolved, invoice, failed: failed.n as number };
  }

  it('sandbox: charged by the resolver under the payment id, succeeded, settled once, nothing failed', async () => {
    const secretKey = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
    const { id, payment, invoice, failed } = await payingUnreached({ name: 'sandbox', credentials: { secretKey } }, 'tok_success', 2_300);
    expect(payment).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^sbx_/), failureCode: null });
    expect(failed).toBe(0);
    expect(invoice.settlements.map((settlement: any) => settlement.reference)).toEqual([payment.id]);
    const charges = await t.dataSource.query(`select reference::text, outcome->>'kind' as kind from sandbox_gateway_charges where environment_id = $1`, [id]);
    expect(charges).toEqual([{ reference: payment.id, kind: 'succeeded' }]);
  });

  it('Stripe: one PaymentIntent created by the resolver with the payment id as its Idempotency-Key, off-session', async () => {
    const credentials = { secretKey: `sk_test_${randomBytes(12).toString('hex')}`, webhookSecret: `whsec_${randomBytes(16).toString('hex')}` };
    const { payment, invoice, failed } = await payingUnreached({ name: 'stripe', credentials }, PM.visa, 3_100);
    expect(payment).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^pi_/), failureCode: null });
    expect(failed).toBe(0);
    expect(invoice.settlements.map((settlement: any) => settlement.reference)).toEqual([payment.id]);
    const creates = server.calls('POST', '/v1/payment_intents').filter((request) => request.body.metadata?.paymentId === payment.id);
    expect(creates.map((request) => request.idempotencyKey)).toEqual([payment.id]);
    expect(creates[0].body).toMatchObject({ amount: '3100', currency: 'eur', payment_method: PM.visa, off_session: 'true' });
  });
});
