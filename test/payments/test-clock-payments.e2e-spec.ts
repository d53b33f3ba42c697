import { randomUUID } from 'node:crypto';
import { EventStore, ProjectionRunner, toNewEvents, WrittenStream } from '@billing/event-store';
import { PaymentCreated, PaymentFlow, paymentStream } from '@billing/payments';
import { startTestApp, TestApp } from '@billing/testing';
import { eventually } from '../webhooks/webhook-test-kit';

const RESOLVE_AFTER_MS = 1_500;

/**
 * Unknown gateway outcomes under test clocks: a gateway call runs in real
 * time, so the wait before the lookup counts in real time from when the
 * payment (or refund) was recorded, whatever the environment's clock; an
 * advance past `createdAt` + the wait resolves it too, before it answers.
 */
describe('Pending payments: looked up in real time, under test clocks too, each in its turn', () => {
  const SECRET = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { PAYMENTS_RESOLVE_AFTER_MS: String(RESOLVE_AFTER_MS) } });
  });
  afterAll(() => t.close());

  /** An environment with the sandbox enabled, its clock at `at`, and a booked invoice paid with `token`. */
  async function paidInEnvironmentAt(at: string, token: string) {
    const environmentId = randomUUID();
    const as = { environment: environmentId, token: t.token([environmentId]) };
    const call = (method: string, path: string, body?: unknown) => t.request(method, path, { ...as, body });
    expect((await call('POST', '/test-clock/advance', { to: at })).status).toBe(200);
    expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } })).status).toBe(200);
    const invoice = await call('POST', '/invoices', {
      customer: { id: randomUUID(), handle: null, name: null },
      currency: 'EUR',
      items: [{ title: 'Plan', quantity: 1, unitAmount: 2_000 }],
    });
    expect((await call('PUT', `/invoices/${invoice.body.id}/book`, {})).status).toBe(200);
    const paid = await call('POST', '/payments', { invoiceId: invoice.body.id, paymentMethod: { provider: 'sandbox', token } });
    expect(paid.status).toBe(201);
    return { call, invoiceId: invoice.body.id as string, payment: paid.body };
  }

  const until = (call: (method: string, path: string) => Promise<{ body: any }>, path: string, done: (body: any) => boolean, label: string) =>
    eventually(
      async () => {
        const { body } = await call('GET', path);
        return done(body) ? body : null;
      },
      15_000,
      label,
    );

  it('issue 20 #2: resolves a pending payment of an environment a year ahead once the wait has passed in real time, dated in the environment', async () => {
    const { call, invoiceId, payment } = await paidInEnvironmentAt('2031-06-01T00:00:00Z', 'tok_timeout');
    expect(payment).toMatchObject({ status: 'pending', createdAt: '2031-06-01T00:00:00.000Z' });
    const resolved = await until(call, `/payments/${payment.id}`, (body) => body.status !== 'pending', 'the payment resolved');
    expect(resolved).toMatchObject({ status: 'succeeded', providerReference: expect.stringMatching(/^sbx_/), updatedAt: '2031-06-01T00:00:00.000Z' });
    await until(call, `/invoices/${invoiceId}`, (body) => body.totalDue === 0, 'the invoice settled');
  });

  it.each([
    ['past', '2031-06-01T01:00:00.000Z'],
    ['issue 41 #5: exactly to', '2031-06-01T00:00:01.500Z'],
  ])('issue 20 #2: an advance %s createdAt + the wait resolves a pending payment before it answers', async (_, to) => {
    const { call, payment } = await paidInEnvironmentAt('2031-06-01T00:00:00Z', 'tok_timeout');
    expect(payment.status).toBe('pending');
    // Well within the real wait: only the environment's clock can have made it due.
    expect((await call('POST', '/test-clock/advance', { to })).status).toBe(200);
    expect((await call('GET', `/payments/${payment.id}`)).body).toMatchObject({ status: 'succeeded', updatedAt: to });
  });

  it('issue 20 #2: resolves a pending refund of an environment a year ahead once the wait has passed in real time', async () => {
    const { call, payment } = await paidInEnvironmentAt('2031-06-01T00:00:00Z', 'tok_timeout');
    await until(call, `/payments/${payment.id}`, (body) => body.status === 'succeeded', 'the payment resolved');
    const refunding = await call('PUT', `/payments/${payment.id}/refund`, { amount: 500 });
    expect(refunding.status).toBe(200);
    expect(refunding.body.refunds).toEqual([expect.objectContaining({ status: 'pending' })]);
    const refunded = await until(call, `/payments/${payment.id}`, (body) => body.refunds[0].status !== 'pending', 'the refund resolved');
    expect(refunded).toMatchObject({ refundedAmount: 500, refunds: [{ status: 'succeeded', providerReference: expect.stringMatching(/^sbx_re_/) }] });
  });

  it('issue 20 #3: 120 payments whose lookups stay unknown do not keep another pending payment from being resolved', async () => {
    const environmentId = randomUUID();
    const meta = { now: new Date(), newId: randomUUID };
    const written: WrittenStream[] = [];
    const unknown = new Set<string>();
    for (let i = 0; i < 120; i++) {
      const paymentId = randomUUID();
      unknown.add(paymentId);
      const created: PaymentCreated = {
        type: 'PaymentCreated',
        schemaVersion: 1,
        data: {
          paymentId,
          invoiceId: randomUUID(),
          customerId: randomUUID(),
          amount: 100,
          currency: 'EUR',
          provider: 'sandbox',
          attempt: 1,
          createdAt: meta.now.toISOString(),
        },
      };
      const appended = await t.app
        .get(EventStore)
        .append([{ stream: paymentStream(environmentId, paymentId), expectedVersion: 'no_stream', events: toNewEvents([created], meta) }], {
          actor: 'test',
          requestId: null,
          correlationId: randomUUID(),
          causationId: null,
        });
      written.push(...appended.written);
    }
    await t.app.get(ProjectionRunner).awaitProjections(written);
    // Their gateway cannot tell yet: every lookup of them stays unknown.
    const flow = t.app.get(PaymentFlow);
    const resolve = flow.resolve.bind(flow);
    const lookups = jest.spyOn(flow, 'resolve').mockImplementation(async (environment, payment, context) => {
      if (!unknown.has(payment.id)) await resolve(environment, payment, context);
    });
    try {
      const { call, payment } = await paidInEnvironmentAt('2026-12-01T00:00:00Z', 'tok_timeout');
      expect(payment.status).toBe('pending');
      const resolved = await until(call, `/payments/${payment.id}`, (body) => body.status !== 'pending', 'the payment resolved');
      expect(resolved.status).toBe('succeeded');
    } finally {
      lookups.mockRestore();
    }
  });
});
