import { randomUUID } from 'node:crypto';
import { currentUnitOfWork } from '@billing/event-store';
import { Clock, ClockDrivenWork, ClockDrivenWorkRegistry } from '@billing/platform';
import { expectProblem, FakeClock, RequestOptions, startTestApp, TestApp } from '@billing/testing';

/**
 * Test clocks over HTTP against real Postgres: per-environment, frozen once
 * advanced, forward only and at most five years per call; every request of
 * the environment (its writes, its Idempotency-Keys) lives in its time; and
 * an advance answers only after the registered clock-driven work has caught up.
 */
describe('Test clocks', () => {
  const base = new FakeClock(new Date('2026-01-15T10:00:00.000Z'));
  let t: TestApp;

  /** Every call the probe work received, and how long it makes an environment's catch-up take. */
  const calls: Array<{ environmentId: string; now: Date; clockNow: Date; inUnitOfWork: boolean; startedAt: number; finishedAt?: number }> = [];
  const delays = new Map<string, number>();
  const failures = new Set<string>();
  const probe: ClockDrivenWork = {
    name: 'test-probe',
    async catchUp(environmentId, now) {
      const call: (typeof calls)[number] = {
        environmentId,
        now,
        clockNow: t.app.get(Clock).now(),
        inUnitOfWork: currentUnitOfWork() !== undefined,
        startedAt: Date.now(),
      };
      calls.push(call);
      await new Promise((resolve) => setTimeout(resolve, delays.get(environmentId) ?? 0));
      if (failures.delete(environmentId)) throw new Error('catch-up failed');
      call.finishedAt = Date.now();
    },
  };

  beforeAll(async () => {
    t = await startTestApp({ clock: base });
    t.app.get(ClockDrivenWorkRegistry).register(probe);
  });
  afterAll(() => t.close());

  /** A fresh environment of its own, so each test starts on the base clock. */
  function environment() {
    const environmentId = randomUUID();
    const token = t.token([environmentId]);
    const request = (method: string, path: string, options: RequestOptions = {}) => t.request(method, path, { environment: environmentId, token, ...options });
    return {
      environmentId,
      request,
      now: async () => {
        const answer = await request('GET', '/test-clock');
        expect(answer.status).toBe(200);
        return answer.body.now as string;
      },
      advance: (to: unknown, headers?: Record<string, string>) => request('POST', '/test-clock/advance', { body: { to }, headers }),
    };
  }

  it("answers the base clock's now, following it, until the environment is advanced", async () => {
    const env = environment();
    expect(await env.now()).toBe(base.now().toISOString());
    base.advance(60_000);
    expect(await env.now()).toBe(base.now().toISOString());
    const answer = await env.request('GET', '/test-clock');
    expect(answer.body).toEqual({ now: base.now().toISOString() });
  });

  it('advances to `to` (any offset; answered in UTC) and stays frozen there while the base clock moves', async () => {
    const env = environment();
    const answer = await env.advance('2026-03-01T12:30:00.250+02:00');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ now: '2026-03-01T10:30:00.250Z' });
    expect(await env.now()).toBe('2026-03-01T10:30:00.250Z');
    base.advance(3_600_000);
    expect(await env.now()).toBe('2026-03-01T10:30:00.250Z');
    const [row] = await t.dataSource.query(`select now from environment_clocks where environment_id = $1`, [env.environmentId]);
    expect(row.now).toEqual(new Date('2026-03-01T10:30:00.250Z'));
    expect((await env.advance('2026-04-01T00:00:00Z')).body).toEqual({ now: '2026-04-01T00:00:00.000Z' });
    expect(await env.now()).toBe('2026-04-01T00:00:00.000Z');
  });

  it('refuses going backwards with a 422 at /to and allows the same instant (nothing changes)', async () => {
    const env = environment();
    expect((await env.advance('2026-06-01T00:00:00Z')).status).toBe(200);
    const backwards = await env.advance('2026-05-31T23:59:59.999Z');
    expectProblem(backwards, 422, 'validation-failed', '/to');
    expect(await env.now()).toBe('2026-06-01T00:00:00.000Z');
    const same = await env.advance('2026-06-01T02:00:00+02:00');
    expect(same.status).toBe(200);
    expect(same.body).toEqual({ now: '2026-06-01T00:00:00.000Z' });
    // Backwards from the base clock too, before any advance.
    const fresh = environment();
    expectProblem(await fresh.advance(new Date(base.now().getTime() - 1).toISOString()), 422, 'validation-failed', '/to');
    expect(await fresh.now()).toBe(base.now().toISOString());
  });

  it('moves at most five calendar years per call (422 at /to beyond), and further in steps', async () => {
    const env = environment();
    expect((await env.advance('2026-07-01T00:00:00Z')).status).toBe(200);
    const tooFar = await env.advance('2031-07-01T00:00:00.001Z');
    expectProblem(tooFar, 422, 'validation-failed', '/to');
    expect(tooFar.body.errors[0].detail).toMatch(/at most 5 years/);
    expect(await env.now()).toBe('2026-07-01T00:00:00.000Z');
    expect((await env.advance('2031-07-01T00:00:00Z')).status).toBe(200);
    expect((await env.advance('2036-07-01T00:00:00Z')).status).toBe(200);
    expect(await env.now()).toBe('2036-07-01T00:00:00.000Z');
  });

  it.each([
    ['no `to`', {}, '/to'],
    ['`to` null', { to: null }, '/to'],
    ['`to` not a date-time', { to: 'next tuesday' }, '/to'],
    ['`to` a date without a time', { to: '2027-01-01' }, '/to'],
    ['`to` without an offset', { to: '2027-01-01T00:00:00' }, '/to'],
    ['`to` a number', { to: 1_800_000_000_000 }, '/to'],
    ['an unknown property', { to: '2027-01-01T00:00:00Z', by: 'P1D' }, '/by'],
    ['an array', [{ to: '2027-01-01T00:00:00Z' }], ''],
    ['a string', '2027-01-01T00:00:00Z', ''],
  ])('answers 422 for a body with %s, pointing at it', async (_label, body, pointer) => {
    const env = environment();
    const answer = await env.request('POST', '/test-clock/advance', { body });
    expectProblem(answer, 422, 'validation-failed', pointer);
    expect(await env.now()).toBe(base.now().toISOString());
  });

  it('answers 422 for an advance without a body', async () => {
    const env = environment();
    expectProblem(await env.request('POST', '/test-clock/advance'), 422, 'validation-failed', '');
  });

  it("keeps environments apart, and another environment's token gets 403", async () => {
    const a = environment();
    const b = environment();
    expect((await a.advance('2027-01-01T00:00:00Z')).status).toBe(200);
    expect(await a.now()).toBe('2027-01-01T00:00:00.000Z');
    expect(await b.now()).toBe(base.now().toISOString());
    expectProblem(await b.request('GET', '/test-clock', { environment: a.environmentId }), 403, 'forbidden-environment');
    expectProblem(
      await b.request('POST', '/test-clock/advance', { environment: a.environmentId, body: { to: '2028-01-01T00:00:00Z' } }),
      403,
      'forbidden-environment',
    );
    expect(await a.now()).toBe('2027-01-01T00:00:00.000Z');
    expectProblem(await t.request('GET', '/test-clock', { token: null }), 401, 'unauthorized');
  });

  it("dates every write of the environment in its time: the events' occurred_at, createdAt, default dates", async () => {
    const env = environment();
    expect((await env.advance('2030-06-30T23:30:00Z')).status).toBe(200);
    const product = await env.request('POST', '/products', { body: { name: 'Timely' } });
    expect(product.status).toBe(201);
    const [event] = await t.dataSource.query(`select occurred_at from events where environment_id = $1 and stream_id = $2`, [
      env.environmentId,
      product.body.id,
    ]);
    expect(event.occurred_at).toEqual(new Date('2030-06-30T23:30:00.000Z'));
    expect(product.body.createdAt).toBe('2030-06-30T23:30:00.000Z');
    const invoice = await env.request('POST', '/invoices', { body: { customer: { id: randomUUID(), handle: null, name: null }, currency: 'EUR' } });
    expect(invoice.status).toBe(201);
    expect(invoice.body).toMatchObject({ date: '2030-06-30', createdAt: '2030-06-30T23:30:00.000Z' });
    // Another environment writing at the same moment lives on the base clock.
    const other = environment();
    const elsewhere = await other.request('POST', '/invoices', { body: { customer: { id: randomUUID(), handle: null, name: null }, currency: 'EUR' } });
    expect(elsewhere.body).toMatchObject({ date: base.now().toISOString().slice(0, 10), createdAt: base.now().toISOString() });
  });

  it("issue 20 #1: keeps an Idempotency-Key for its retention in real time, whatever the environment's clock: an advance does not forget it", async () => {
    const env = environment();
    expect((await env.advance('2030-01-01T00:00:00Z')).status).toBe(200);
    const key = randomUUID();
    const first = await env.request('POST', '/products', { body: { name: 'Keyed' }, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(first.body.createdAt).toBe('2030-01-01T00:00:00.000Z');
    const [row] = await t.dataSource.query(`select created_at, expires_at from idempotency_keys where environment_id = $1 and key = $2`, [
      env.environmentId,
      key,
    ]);
    expect(row.created_at).toEqual(base.now());
    expect(row.expires_at).toEqual(new Date(base.now().getTime() + t.config.idempotencyRetentionHours * 3_600_000));
    // Two days later in the environment, a moment later in real time: the client's retry is still a replay.
    expect((await env.advance('2030-01-03T00:00:00Z')).status).toBe(200);
    const replay = await env.request('POST', '/products', { body: { name: 'Keyed' }, headers: { 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    // Past the retention in real time, the key is forgotten: the same request runs anew.
    base.advance(t.config.idempotencyRetentionHours * 3_600_000 + 1);
    const after = await env.request('POST', '/products', { body: { name: 'Keyed' }, headers: { 'idempotency-key': key } });
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.body.id).not.toBe(first.body.id);
  });

  it('calls the registered clock-driven work with the environment and the new now, in that time, and answers only after it finished', async () => {
    const env = environment();
    delays.set(env.environmentId, 300);
    const sent = Date.now();
    const answer = await env.advance('2027-03-01T00:00:00Z');
    const answered = Date.now();
    expect(answer.status).toBe(200);
    const mine = calls.filter((call) => call.environmentId === env.environmentId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ now: new Date('2027-03-01T00:00:00.000Z'), clockNow: new Date('2027-03-01T00:00:00.000Z'), inUnitOfWork: false });
    expect(mine[0].startedAt).toBeGreaterThanOrEqual(sent);
    expect(mine[0].finishedAt).toBeDefined();
    expect(mine[0].finishedAt!).toBeGreaterThanOrEqual(mine[0].startedAt + 300 - 5);
    expect(answered).toBeGreaterThanOrEqual(mine[0].finishedAt!);
    // With an Idempotency-Key the work still runs outside the key's transaction, in the new time.
    const keyed = await env.advance('2027-04-01T00:00:00Z', { 'idempotency-key': randomUUID() });
    expect(keyed.status).toBe(200);
    expect(calls.filter((call) => call.environmentId === env.environmentId).at(-1)).toMatchObject({
      now: new Date('2027-04-01T00:00:00.000Z'),
      clockNow: new Date('2027-04-01T00:00:00.000Z'),
      inUnitOfWork: false,
    });
    // A refused advance runs nothing.
    const before = calls.length;
    expectProblem(await env.advance('2027-01-01T00:00:00Z'), 422, 'validation-failed', '/to');
    expect(calls).toHaveLength(before);
  });

  it('answers a failed catch-up with a 500, the clock moved; the same advance again runs the catch-up again', async () => {
    const env = environment();
    failures.add(env.environmentId);
    expectProblem(await env.advance('2028-01-01T00:00:00Z'), 500, 'internal-error');
    expect(await env.now()).toBe('2028-01-01T00:00:00.000Z');
    const retry = await env.advance('2028-01-01T00:00:00Z');
    expect(retry.status).toBe(200);
    expect(calls.filter((call) => call.environmentId === env.environmentId).map((call) => call.finishedAt !== undefined)).toEqual([false, true]);
  });

  it('serialises concurrent advances of one environment: each checked against the last, the latest instant wins', async () => {
    const env = environment();
    const instants = Array.from({ length: 10 }, (_, i) => new Date(Date.UTC(2027, 0, 1 + i)).toISOString());
    const shuffled = [...instants].sort(() => Math.random() - 0.5);
    const answers = await Promise.all(shuffled.map((to) => env.advance(to)));
    for (const answer of answers) expect([200, 422]).toContain(answer.status);
    expect(answers[shuffled.indexOf(instants[9])].status).toBe(200);
    expect(await env.now()).toBe(instants[9]);
  });

  it('documents both operations in the OpenAPI document', async () => {
    const document = (await t.request('GET', '/openapi.json', { token: null })).body;
    expect(Object.keys(document.paths['/test-clock'])).toEqual(['get']);
    const advance = document.paths['/test-clock/advance'].post;
    expect(Object.keys(advance.responses)).toEqual(expect.arrayContaining(['200', '422']));
    expect(JSON.stringify(advance.requestBody)).toContain('AdvanceTestClockBody');
    expect(document.components.schemas.AdvanceTestClockBody.properties.to).toMatchObject({ type: 'string', format: 'date-time' });
  });
});
