import { randomUUID } from 'node:crypto';
import { analyticsMigrations } from '@billing/analytics';
import { ProjectionRunner } from '@billing/event-store';
import { FakeClock, startTestApp, TestApp } from '@billing/testing';
import { analyticsEnvironment, fiveMonthsOfBilling } from './analytics-kit';

type Migration = new () => { up(runner: unknown): Promise<void>; down(runner: unknown): Promise<void> };

/**
 * Migration AnalyticsTrackedInvoices1764600920000 against rows in the shape they had before: analytics kept
 * invoicing's whole state of each invoice, the very state invoicing's read model keeps in `invoices.state`.
 */
describe('analytics read-model migrations', () => {
  const clock = new FakeClock(new Date('2026-01-01T00:00:00.000Z'));
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ clock, env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  it('AnalyticsTrackedInvoices turns whole invoice states into what the new fold makes of the same events; run again, it changes nothing; after its down a rebuild makes the same', async () => {
    const env = analyticsEnvironment(t);
    await fiveMonthsOfBilling(env);
    // Besides the booked, paid, refunded and credited ones: a draft with a discounted line, and a booked invoice voided.
    const customer = { id: randomUUID(), handle: null, name: 'Draft Oy' };
    const items = [{ title: 'Seats', quantity: 3, unitAmount: 1_000, discount: { percentage: 10 } }];
    await env.call('POST', '/invoices', { customer, currency: 'EUR', items }, 201);
    const voided = await env.bookedInvoice(9_000);
    await env.call('PUT', `/invoices/${voided.id}/void`, {}, 200);
    const rows = async () => {
      await env.get('/analytics/revenue?from=2026-01-01&to=2026-05-01&interval=month&currency=eur'); // catches analytics up
      return t.dataSource.query(`select id, state from analytics_invoices where environment_id = $1 order by id`, [env.id]);
    };
    const tracked = await rows();
    expect(tracked.map((row: { state: { status: string } }) => row.state.status).sort()).toEqual(expect.arrayContaining(['booked', 'draft', 'void']));
    expect(tracked.some((row: { state: { lineDiscounts: number } }) => row.state.lineDiscounts > 0)).toBe(true);

    const updated = await t.dataSource.query(
      `update analytics_invoices a set state = i.state::jsonb from invoices i where a.environment_id = $1 and i.environment_id = a.environment_id and i.id = a.id`,
      [env.id],
    );
    expect(updated[1]).toBe(tracked.length);
    const Migration = analyticsMigrations.find((m) => m.name === 'AnalyticsTrackedInvoices1764600920000') as Migration;
    const runner = t.dataSource.createQueryRunner();
    try {
      await new Migration().up(runner);
      expect(await rows()).toEqual(tracked);
      await new Migration().up(runner);
      expect(await rows()).toEqual(tracked);
      await new Migration().down(runner);
      expect(await t.dataSource.query(`select 1 from analytics_invoices where environment_id = $1`, [env.id])).toEqual([]);
      // What a service started after the down does: the projection, without a checkpoint, rebuilt from the log.
      await t.app.get(ProjectionRunner).rebuild('analytics.read-model');
      expect(await rows()).toEqual(tracked);
    } finally {
      await runner.release();
    }
  });
});
