import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { environmentCall, eventually, startTestApp, TestApp } from '@billing/testing';

/**
 * Issue 41 #3: an advance answers after the collection tries due by its new time, including one the worker of this
 * process was making when the advance came (its charge at the gateway): never while a try is half made, so the
 * invoices it leaves read as that try left them. An advance waits for the worker's passes under way (WorkInFlight, with
 * its own unit test of the ordering); here the whole path, with the charge held at the gateway.
 */
describe('a test-clock advance and a collection try in flight', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('waits for the worker’s try in flight, then answers with the invoice settled', async () => {
    const call = environmentCall(t, randomUUID());
    await call('POST', '/test-clock/advance', { to: '2027-02-01T09:00:00.000Z' }, 200);
    await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_inflight' } }, 200);
    const productId = (await call('POST', '/products', { name: 'Plan' }, 201)).body.id;
    const pricing = { pricing: { eur: { unitAmount: 2500 } }, purchase: 'recurring', termCount: 1, termUnit: 'month' };
    const priceId = (await call('POST', '/prices', { name: 'Monthly', priceModel: 'fee', productId, ...pricing }, 201)).body.id;
    const blocker = new Client({ connectionString: t.database.url });
    await blocker.connect();
    let advancing: Promise<number> | undefined;
    try {
      // The sandbox records each charge in its table: holding inserts there keeps the worker's try at the gateway.
      await blocker.query('begin');
      await blocker.query('lock table sandbox_gateway_charges in exclusive mode');
      const subscription = {
        customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' },
        currency: 'EUR',
        term: { start: '2027-02-01', end: null },
        items: [{ priceId }],
        paymentMethod: { provider: 'sandbox', token: 'tok_success' },
      };
      await call('POST', '/subscriptions', subscription, 201);
      // The worker bills the subscription (due now) and tries its invoice: the charge waits at the gateway's table.
      const waitingCharge = `select pid from pg_locks where not granted and relation = 'sandbox_gateway_charges'::regclass`;
      await eventually(
        async () => (await blocker.query(waitingCharge)).rowCount,
        (waiting) => waiting === 1,
        { what: 'the worker’s charge waiting at the gateway' },
      );
      // The advance is asked while the charge is held; it answers once the try has its outcome.
      advancing = call('POST', '/test-clock/advance', { to: '2027-02-02T09:00:00.000Z' }).then((response) => response.status);
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }
    expect(await advancing).toBe(200);
    const invoices = (await call('GET', '/invoices', undefined, 200)).body.items;
    expect(invoices.map((invoice: { settlementStatus: string; totalDue: number }) => [invoice.settlementStatus, invoice.totalDue])).toEqual([['settled', 0]]);
  });
});
