import { ProjectionRunner } from '@billing/event-store';
import { startTestApp, TestApp } from '@billing/testing';
import { appendEvent, eventually, testPriceContext } from './webhook-test-kit';

/**
 * `npm run rebuild` replays projections only. The fan-out is a reactor: it is
 * never replayed, so a rebuild can neither queue a notification a second time
 * nor cancel a delivery that is pending now.
 */
describe('Rebuilding read models and webhook fan-out', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extraContexts: [testPriceContext], env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const snapshot = async () =>
    t.dataSource.query(
      `select d.id, d.status, n.type, n.event_id from webhook_deliveries d join webhook_notifications n on n.environment_id = d.environment_id and n.id = d.notification_id
        order by d.id`,
    );

  it('sends nothing again and cancels nothing pending', async () => {
    const subscribe = () => t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://receiver.example.com/hooks' } });
    const subscription = (await subscribe()).body;
    const first = await appendEvent(t, { occurredAt: new Date() });
    await eventually(async () => (await snapshot()).length === 1, 5000, 'the first delivery');
    // Unsubscribing cancels the first delivery; subscribing again and a second event queue a pending one.
    expect((await t.request('DELETE', `/webhooks/${subscription.id}`)).status).toBe(204);
    expect((await subscribe()).status).toBe(200);
    const second = await appendEvent(t, { occurredAt: new Date() });
    const before = await eventually(
      async () => {
        const rows = await snapshot();
        return rows.length === 2 && rows.some((r: { status: string }) => r.status === 'cancelled') ? rows : null;
      },
      5000,
      'the second delivery',
    );
    expect(before.map((r: { event_id: string; status: string }) => [r.event_id, r.status]).sort()).toEqual(
      [
        [first.eventId, 'cancelled'],
        [second.eventId, 'pending'],
      ].sort(),
    );

    const runner = t.app.get(ProjectionRunner);
    expect(runner.projectionNames).not.toContain('webhooks.fan-out');
    for (const name of runner.projectionNames) await runner.rebuild(name);
    await expect(runner.rebuild('webhooks.fan-out')).rejects.toThrow('never replayed');

    expect(await snapshot()).toEqual(before);
    expect((await t.request('GET', `/webhooks`)).body.items).toHaveLength(1);
  });
});
