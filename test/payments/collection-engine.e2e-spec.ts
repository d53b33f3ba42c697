import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EventStore, ProjectionRunner, toNewEvents, WrittenStream } from '@billing/event-store';
import {
  CollectionEngine,
  collectionEvolver,
  collectionStream,
  decideStartAttempt,
  decideStartCollection,
  PaymentCreated,
  PaymentFlow,
  paymentStream,
} from '@billing/payments';
import { environmentCall, eventually, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { collectingSubscription } from './collection-kit';

const STUCK = 120;

/**
 * The collection engine under load. Collection tries whose payment is still
 * pending (a gateway that has not answered) wait for the resolver: however
 * many there are, and however old, they never stand in front of the tries
 * that are due. The resolver's wait is set beyond the test so the stuck ones
 * stay stuck. Processes collecting the same invoice at once conflict on its
 * stream: expected, and not an error.
 */
describe('The collection engine', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { PAYMENTS_RESOLVE_AFTER_MS: String(90 * 24 * 3_600_000) } });
  });
  afterAll(() => t.close());

  /**
   * `count` collections of the environment started at `at`, as the
   * collection engine leaves them: `due` (not tried yet), `paying` (a try
   * claimed whose payment is still pending) or `claimed` (a try claimed whose
   * payment is not recorded yet: a process died before paying).
   */
  async function seededCollections(environmentId: string, count: number, at: string, stage: 'due' | 'paying' | 'claimed'): Promise<string[]> {
    const meta = { now: new Date(at), newId: randomUUID };
    const metadata = { actor: 'test', requestId: null, correlationId: randomUUID(), causationId: null };
    const store = t.app.get(EventStore);
    const written: WrittenStream[] = [];
    const invoiceIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const invoiceId = randomUUID();
      invoiceIds.push(invoiceId);
      const paymentId = randomUUID();
      const started = decideStartCollection(
        { invoiceId, subscriptionId: randomUUID(), provider: 'sandbox', token: 'tok_timeout', retryDays: [1] },
        collectionEvolver.initialState(),
        meta,
      );
      const claimed =
        stage === 'due' ? [] : decideStartAttempt({ paymentId }, started.reduce(collectionEvolver.evolve, collectionEvolver.initialState()), meta);
      const created: PaymentCreated = {
        type: 'PaymentCreated',
        schemaVersion: 1,
        data: {
          paymentId,
          invoiceId,
          customerId: randomUUID(),
          amount: 2_500,
          currency: 'EUR',
          provider: 'sandbox',
          attempt: 1,
          createdAt: meta.now.toISOString(),
        },
      };
      const appended = await store.append(
        [
          { stream: collectionStream(environmentId, invoiceId), expectedVersion: 'no_stream', events: toNewEvents([...started, ...claimed], meta) },
          ...(stage === 'paying'
            ? [{ stream: paymentStream(environmentId, paymentId), expectedVersion: 'no_stream' as const, events: toNewEvents([created], meta) }]
            : []),
        ],
        metadata,
      );
      written.push(...appended.written);
    }
    await t.app.get(ProjectionRunner).awaitProjections(written);
    return invoiceIds;
  }

  it(`issue 20 #3: ${STUCK} collections waiting on pending payments do not keep a due one from being charged`, async () => {
    const id = randomUUID();
    const call = environmentCall(t, id);
    await collectingSubscription(call, { secretKey: 'sk_sandbox_stuck1234', token: 'tok_success' });
    await seededCollections(id, STUCK, '2026-01-10T00:00:00.000Z', 'paying');

    await call('POST', '/test-clock/advance', { to: '2026-02-01T00:00:00.000Z' }, 200);
    const invoiceId = (await call('GET', '/invoices', undefined, 200)).body.items[0].id as string;
    const payments = await eventually(
      async () => (await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoiceId}`)}`, undefined, 200)).body.items as any[],
      (items) => items.length === 1 && items[0].status === 'succeeded',
      { what: 'the due collection charged' },
    );
    expect(payments[0]).toMatchObject({ amount: 2500, provider: 'sandbox' });
    await eventually(
      async () =>
        (await t.dataSource.query(`select status from payment_collections where environment_id = $1 and invoice_id = $2`, [id, invoiceId]))[0]?.status,
      (status) => status === 'succeeded',
      { what: 'the due collection recorded as succeeded' },
    );
    const [stuck] = await t.dataSource.query(`select count(*)::int as n from payment_collections where environment_id = $1 and status = 'attempting'`, [id]);
    expect(stuck.n).toBe(STUCK);
  });

  it('issue 20 #4: processes collecting the same invoice at once log their version conflicts at debug, not error', async () => {
    const environmentId = randomUUID();
    // Claimed ahead of the base clock: only the racers below look at it, never a worker run.
    const at = '2026-03-01T00:00:00.000Z';
    const [invoiceId] = await seededCollections(environmentId, 1, at, 'claimed');
    const engine = t.app.get(CollectionEngine);
    const flow = t.app.get(PaymentFlow);
    const RACERS = 3;
    // Every racer loads the claimed try before any records its outcome: all but one then find the stream moved.
    let arrived = 0;
    let release!: () => void;
    const together = new Promise<void>((resolve) => (release = resolve));
    const pay = flow.pay.bind(flow);
    const paying = jest.spyOn(flow, 'pay').mockImplementation(async (...args) => {
      if (++arrived === RACERS) release();
      await together;
      return pay(...args);
    });
    const errors = jest.spyOn(Logger.prototype, 'error');
    const debugs = jest.spyOn(Logger.prototype, 'debug');
    try {
      await Promise.all(Array.from({ length: RACERS }, () => engine.catchUp(environmentId, new Date(at))));
      expect(paying).toHaveBeenCalledTimes(RACERS);
      const collections = (calls: jest.SpyInstance) =>
        calls.mock.calls.filter((_call, index) => (calls.mock.contexts[index] as { context?: string }).context === 'Collections');
      expect(collections(errors)).toEqual([]);
      // A racer that loses (whether any does depends on how the three interleave: one that loads after another's
      // outcome committed finds nothing to record) says so at debug, with this message and no other.
      const lost = collections(debugs).filter(([entry]) => (entry as { invoiceId?: string }).invoiceId === invoiceId);
      expect(lost.length).toBeLessThanOrEqual(RACERS - 1);
      for (const [entry] of lost) expect(entry).toMatchObject({ msg: 'another process recorded this collection first' });
      const [row] = await t.dataSource.query(`select status from payment_collections where environment_id = $1 and invoice_id = $2`, [
        environmentId,
        invoiceId,
      ]);
      // Its invoice does not exist: the try failed without charging, recorded once.
      expect(row.status).toBe('failed');
    } finally {
      paying.mockRestore();
      errors.mockRestore();
      debugs.mockRestore();
    }
  });

  it('issue 20 #3: an advance makes every try due in its environment before it answers, however many (more than one page of 100)', async () => {
    const environmentId = randomUUID();
    // Started ahead of the base clock: no worker run sees them before the advance.
    await seededCollections(environmentId, 130, '2026-03-01T00:00:00.000Z', 'due');
    const advanced = await t.request('POST', '/test-clock/advance', {
      environment: environmentId,
      token: t.token([environmentId]),
      body: { to: '2026-03-01T00:00:00Z' },
    });
    expect(advanced.status).toBe(200);
    // Their invoices do not exist: each try failed without charging, and that ends the collection. A worker run that
    // saw the advanced clock at the same moment may have claimed a try first: it finishes that one itself, a moment later.
    const statuses = () =>
      t.dataSource.query(`select status, count(*)::int as n from payment_collections where environment_id = $1 group by status`, [environmentId]);
    const rows = await eventually(statuses, (current) => current.length === 1 && current[0].status === 'failed', {
      timeoutMs: 5000,
      what: 'every collection failed',
    });
    expect(rows).toEqual([{ status: 'failed', n: 130 }]);
  });
});
