import { startTestApp, TestApp } from '@billing/testing';
import { WebhookDispatcher } from '@billing/webhooks';
import { appendEvent, createSelfSignedCertificate, Receiver, testPriceContext, TestCertificate } from './webhook-test-kit';

/** The running dispatcher (worker role, real clock): notifications leave right after the event commits. */
describe('Webhook delivery latency', () => {
  let t: TestApp;
  let certificate: TestCertificate;
  let receiver: Receiver;

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    receiver = await new Receiver(certificate).start();
    t = await startTestApp({
      extraContexts: [testPriceContext],
      env: {
        WEBHOOK_DISPATCHER_ENABLED: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_CA_FILE: certificate.certFile,
        // A slow poll proves the wake-ups (commit hook, NOTIFY) do the work.
        WEBHOOK_POLL_INTERVAL_MS: '60000',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
    certificate.remove();
  });

  it('delivers each event after its commit without polling: woken by the commit, well before the 60 s poll', async () => {
    expect(t.app.get(WebhookDispatcher).isRunning).toBe(true);
    const subscribed = await t.request('PUT', '/webhooks/subscribe', { body: { url: receiver.url() } });
    expect(subscribed.status).toBe(200);
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const committedAt = await appendEvent(t, { occurredAt: new Date() }).then(() => performance.now());
      // The deadline is far below the 60 s poll: only a wake-up by the commit can deliver in time (speed itself is measured by the bench).
      const [request] = (await receiver.waitForRequests(i + 1, 10_000)).slice(i);
      latencies.push(request.receivedAt - committedAt);
    }
    latencies.sort((a, b) => a - b);
    const p50 = latencies[10];
    const max = latencies[latencies.length - 1];
    console.log(`commit -> delivery on a local HTTPS receiver over 20 events: p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    expect(receiver.requests).toHaveLength(20);
  });
});
