import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '@billing/testing';
import { createSelfSignedCertificate, eventually, Receiver, TestCertificate } from './webhook-test-kit';

/**
 * Notifications are real-world side effects: sent and retried in real time
 * whatever an environment's test clock says, while the notification's
 * `occurredAt` stays the environment's time. The background dispatcher runs
 * (the real clock), as in a deployment.
 */
describe('Webhook delivery in an environment whose test clock was advanced', () => {
  let t: TestApp;
  let certificate: TestCertificate;
  let receiver: Receiver;

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    t = await startTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_INSECURE_HTTP: 'false', WEBHOOK_CA_FILE: certificate.certFile, WEBHOOK_TIMEOUT_MS: '2000' },
    });
    receiver = await new Receiver(certificate).start();
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
    certificate.remove();
  });

  it('issue 20 #1: delivers at once, in real time, the notifications of an environment whose clock is a year ahead; redeliver sends it again', async () => {
    const environmentId = randomUUID();
    const as = { environment: environmentId, token: t.token([environmentId]) };
    const subscribed = await t.request('PUT', '/webhooks/subscribe', { body: { url: receiver.url() }, headers: { 'x-version': '2022-03' }, ...as });
    expect(subscribed.status).toBe(200);
    expect((await t.request('POST', '/test-clock/advance', { body: { to: '2031-01-01T00:00:00Z' }, ...as })).status).toBe(200);
    const startedAt = Date.now();

    const created = await t.request('POST', '/products', { body: { name: 'Ahead' }, ...as });
    expect(created.status).toBe(201);
    const [request] = await receiver.waitForRequests(1, 10_000);
    const body = JSON.parse(request.rawBody);
    expect(body).toMatchObject({
      type: 'product.created',
      environmentId,
      occurredAt: '2031-01-01T00:00:00.000Z',
      data: expect.objectContaining({ id: created.body.id }),
    });
    // Signed and retried in real time: the timestamp is now, not the environment's 2031.
    expect(body.timestamp * 1000).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000) * 1000);
    expect(body.timestamp * 1000).toBeLessThan(Date.parse('2030-01-01T00:00:00Z'));

    const listed = await eventually(
      async () => {
        const page = await t.request('GET', `/webhooks/${subscribed.body.id}/deliveries`, as);
        return page.body.items?.[0]?.status === 'delivered' ? page.body.items[0] : null;
      },
      10_000,
      'the delivery recorded as delivered',
    );
    expect(listed.attempts).toHaveLength(1);
    expect(Date.parse(listed.createdAt)).toBeLessThan(Date.parse('2030-01-01T00:00:00Z'));

    const redelivered = await t.request('POST', `/webhooks/deliveries/${listed.id}/redeliver`, as);
    expect(redelivered.status).toBe(202);
    expect(Date.parse(redelivered.body.nextAttemptAt ?? new Date().toISOString())).toBeLessThan(Date.parse('2030-01-01T00:00:00Z'));
    const requests = await receiver.waitForRequests(2, 10_000);
    expect(JSON.parse(requests[1].rawBody)).toMatchObject({ id: body.id, occurredAt: '2031-01-01T00:00:00.000Z' });
  });
});
