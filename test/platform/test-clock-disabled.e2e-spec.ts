import { randomUUID } from 'node:crypto';
import { EnvironmentClock } from '@billing/platform';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';

/** TEST_CLOCKS=false (the production default): no test-clock routes, and every request on the base clock. */
describe('Test clocks off', () => {
  const base = new FakeClock(new Date('2026-02-01T08:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock: base, env: { TEST_CLOCKS: 'false' } });
    // A clock left in the table (say, by an earlier run with test clocks on) is not read.
    await t.dataSource.query(`insert into environment_clocks (environment_id, now, updated_at) values ($1, $2, $2)`, [
      t.environmentId,
      new Date('2029-01-01T00:00:00.000Z'),
    ]);
  });
  afterAll(() => t.close());

  it.each([
    ['GET', '/test-clock', undefined],
    ['POST', '/test-clock/advance', { to: '2027-01-01T00:00:00Z' }],
  ])('answers %s %s with 404 route-not-found', async (method, path, body) => {
    expectProblem(await t.request(method, path, { body }), 404, 'route-not-found');
  });

  it('runs requests on the base clock, whatever environment_clocks holds', async () => {
    expect(t.config.testClocks).toBe(false);
    const key = randomUUID();
    const product = await t.request('POST', '/products', { body: { name: 'Plain' }, headers: { 'idempotency-key': key } });
    expect(product.status).toBe(201);
    expect(product.body.createdAt).toBe(base.now().toISOString());
    const [event] = await t.dataSource.query(`select occurred_at from events where environment_id = $1 and stream_id = $2`, [t.environmentId, product.body.id]);
    expect(event.occurred_at).toEqual(base.now());
    const [stored] = await t.dataSource.query(`select created_at from idempotency_keys where environment_id = $1 and key = $2`, [t.environmentId, key]);
    expect(stored.created_at).toEqual(base.now());
    expect(await t.app.get(EnvironmentClock).now(t.environmentId)).toEqual(base.now());
    await expect(t.app.get(EnvironmentClock).advance(t.environmentId, new Date('2030-01-01T00:00:00.000Z'))).rejects.toThrow('test clocks are disabled');
  });

  it('leaves the test-clock operations out of the OpenAPI document', async () => {
    const document = (await t.request('GET', '/openapi.json', { token: null })).body;
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/test-clock'))).toEqual([]);
  });
});
