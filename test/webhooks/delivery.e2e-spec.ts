import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { FakeClock, startTestApp, TestApp } from '@billing/testing';
import { CommandPath } from '@billing/event-store';
import { Clock } from '@billing/platform';
import { nominalRetrySchedule, Resolver, SignatureKeyVault, WEBHOOKS_CONFIG, WebhookDispatcher, WebhookSender, WebhooksConfig } from '@billing/webhooks';
import {
  appendEvent,
  createSelfSignedCertificate,
  deliveriesFor,
  eventually,
  queued,
  Receiver,
  testPriceContext,
  TestCertificate,
  verifySignatureMember,
} from './webhook-test-kit';
import { customer } from '../invoicing/invoicing-helpers';

const HOUR = 60 * 60 * 1000;

/**
 * The dispatcher against a real local HTTPS receiver (self-signed certificate
 * trusted through WEBHOOK_CA_FILE). The background dispatcher is off: each
 * test drives `runOnce()` and the FakeClock, so backoff and the 72-hour
 * cut-off run without waiting.
 */
describe('Webhook delivery', () => {
  let t: TestApp;
  let clock: FakeClock;
  let certificate: TestCertificate;
  let dispatcher: WebhookDispatcher;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    clock = new FakeClock(new Date());
    t = await startTestApp({
      clock,
      extraContexts: [testPriceContext],
      env: {
        WEBHOOK_DISPATCHER_ENABLED: 'false',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_INSECURE_HTTP: 'false',
        WEBHOOK_CA_FILE: certificate.certFile,
        WEBHOOK_TIMEOUT_MS: '500',
      },
    });
    dispatcher = t.app.get(WebhookDispatcher);
  });
  afterAll(async () => {
    dispatcher.sender.close();
    await Promise.all(receivers.map((r) => r.stop()));
    await t.close();
    certificate.remove();
  });

  beforeEach(() => clock.set(new Date()));

  // Tests share one database and one dispatcher: nothing a test left queued may be sent in the next one.
  afterEach(async () => {
    await t.dataSource.query(`update webhook_deliveries set status = 'cancelled', next_attempt_at = null where status = 'pending'`);
  });

  /** A fresh environment with its own receiver and subscription, so tests do not see each other's deliveries. */
  async function setup(path = '/hooks') {
    const environmentId = randomUUID();
    const as = { environment: environmentId, token: t.token([environmentId]) };
    const receiver = await new Receiver(certificate).start();
    receivers.push(receiver);
    const subscribed = await t.request('PUT', '/webhooks/subscribe', { body: { url: receiver.url(path) }, headers: { 'x-version': '2022-03' }, ...as });
    expect(subscribed.status).toBe(200);
    return { environmentId, as, receiver, subscription: subscribed.body as { id: string; url: string; signatureKey: string } };
  }

  async function attemptsOf(deliveryId: string) {
    return t.dataSource.query(`select outcome, status_code, error from webhook_delivery_attempts where delivery_id = $1 order by attempted_at, id`, [
      deliveryId,
    ]);
  }

  it('delivers a signed notification; both signatures verify', async () => {
    const { environmentId, receiver, subscription } = await setup();
    const occurredAt = clock.now();
    const event = await appendEvent(t, { environmentId, data: { name: 'Gold', amount: 1250 }, occurredAt });
    await queued(t, event.eventId);
    expect(await dispatcher.runOnce()).toEqual(['delivered']);
    const [request] = receiver.requests;
    expect(receiver.requests).toHaveLength(1);
    expect(request.path).toBe('/hooks');
    expect(request.headers['content-type']).toBe('application/json');

    const body = JSON.parse(request.rawBody);
    expect(Object.keys(body)).toEqual(['id', 'type', 'environmentId', 'occurredAt', 'version', 'data', 'timestamp', 'signature']);
    expect(body).toEqual({
      id: event.eventId,
      type: 'price.created',
      environmentId,
      occurredAt: occurredAt.toISOString(),
      version: '2022-03',
      data: { name: 'Gold', amount: 1250, revision: 1 },
      timestamp: Math.floor(clock.now().getTime() / 1000),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    // 1. Standard Webhooks headers, with the reference library.
    expect(request.headers['webhook-id']).toBe(event.eventId);
    expect(() => new Webhook(subscription.signatureKey).verify(request.rawBody, request.headers)).not.toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(request.rawBody, request.headers)).toThrow();

    // 2. The `signature` member, with node:crypto only, following the README recipe.
    const raw = request.rawBody;
    const match = /,"signature":"([0-9a-f]{64})"\}$/.exec(raw)!;
    const signed = raw.slice(0, match.index) + '}';
    const { id, timestamp } = JSON.parse(signed);
    const key = Buffer.from(subscription.signatureKey.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${signed}`).digest();
    expect(timingSafeEqual(expected, Buffer.from(match[1], 'hex'))).toBe(true);
    const tampered = signed.replace('1250', '9999');
    const forged = createHmac('sha256', key).update(`${id}.${timestamp}.${tampered}`).digest();
    expect(timingSafeEqual(forged, Buffer.from(match[1], 'hex'))).toBe(false);
    expect(verifySignatureMember(raw, subscription.signatureKey)).toBe(true);
    expect(verifySignatureMember(raw.replace('1250', '9999'), subscription.signatureKey)).toBe(false);

    const listed = await t.request('GET', `/webhooks/${subscription.id}/deliveries`, { environment: environmentId, token: t.token([environmentId]) });
    expect(listed.body.items[0]).toMatchObject({
      status: 'delivered',
      failures: 0,
      nextAttemptAt: null,
      deliveredAt: clock.now().toISOString(),
      lastStatusCode: 200,
      attempts: [{ attemptedAt: clock.now().toISOString(), outcome: 'delivered', statusCode: 200, error: null, durationMs: expect.any(Number) }],
    });
  });

  it('a real POST /invoices reaches the subscribed HTTPS receiver as a signed invoice.created notification carrying the invoice', async () => {
    const { environmentId, as, receiver, subscription } = await setup('/billing');
    const created = await t.request('POST', '/invoices', {
      ...as,
      body: {
        customer: customer(),
        currency: 'eur',
        date: '2026-01-15',
        dueDate: '2026-01-29',
        memo: 'webhook e2e',
        items: [{ quantity: 3, unitAmount: 1250, title: 'Seats' }],
      },
    });
    expect(created.status).toBe(201);
    const [event] = await t.dataSource.query(
      `select event_id, occurred_at from events where environment_id = $1 and stream_type = 'invoice' and stream_id = $2 and event_type = 'InvoiceCreated'`,
      [environmentId, created.body.id],
    );
    expect(event).toBeDefined();
    await queued(t, event.event_id);
    expect(await dispatcher.runOnce()).toEqual(['delivered']);

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request.path).toBe('/billing');
    const body = JSON.parse(request.rawBody);
    // Notifications carry the invoice as its stream's view: without the hosted page link, which only the API's answers add.
    const { hostedInvoiceUrl, ...invoice } = created.body;
    expect(hostedInvoiceUrl).toBeNull();
    expect(body).toEqual({
      id: event.event_id,
      type: 'invoice.created',
      environmentId,
      occurredAt: event.occurred_at.toISOString(),
      version: '2022-03',
      data: invoice, // the invoice exactly as POST /invoices answered it
      timestamp: Math.floor(clock.now().getTime() / 1000),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(body.data).toMatchObject({ id: created.body.id, status: 'draft', currency: 'EUR', totalExclVat: 3750, memo: 'webhook e2e' });
    // Both signatures verify with the key from subscribe, and only with it.
    expect(request.headers['webhook-id']).toBe(event.event_id);
    expect(() => new Webhook(subscription.signatureKey).verify(request.rawBody, request.headers)).not.toThrow();
    expect(verifySignatureMember(request.rawBody, subscription.signatureKey)).toBe(true);
    const otherKey = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect(() => new Webhook(otherKey).verify(request.rawBody, request.headers)).toThrow();
    expect(verifySignatureMember(request.rawBody, otherKey)).toBe(false);
    const listed = await t.request('GET', `/webhooks/${subscription.id}/deliveries`, as);
    expect(listed.body.items).toEqual([expect.objectContaining({ notificationId: event.event_id, type: 'invoice.created', status: 'delivered' })]);
  });

  it('a receiver that fails twice, then answers 200, gets one successful delivery after two recorded failures', async () => {
    const { environmentId, receiver } = await setup();
    receiver.answer = (_, index) => ({ status: index < 2 ? 500 : 200 });
    const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    const [row] = await queued(t, event.eventId);

    expect(await dispatcher.runOnce()).toEqual(['pending']);
    let [state] = await deliveriesFor(t, event.eventId);
    expect(state.failures).toBe(1);
    // First retry: 30 s ± 20 %.
    const firstDelay = state.next_attempt_at!.getTime() - clock.now().getTime();
    expect(firstDelay).toBeGreaterThanOrEqual(24_000);
    expect(firstDelay).toBeLessThanOrEqual(36_000);
    expect(await dispatcher.runOnce()).toEqual([]); // not due yet

    clock.set(state.next_attempt_at!);
    expect(await dispatcher.runOnce()).toEqual(['pending']);
    [state] = await deliveriesFor(t, event.eventId);
    const secondDelay = state.next_attempt_at!.getTime() - clock.now().getTime();
    expect(secondDelay).toBeGreaterThanOrEqual(48_000);
    expect(secondDelay).toBeLessThanOrEqual(72_000);

    clock.set(state.next_attempt_at!);
    expect(await dispatcher.runOnce()).toEqual(['delivered']);
    expect(await dispatcher.runOnce()).toEqual([]);
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => JSON.parse(r.rawBody).id))).toEqual(new Set([event.eventId]));
    expect(await attemptsOf(row.id)).toEqual([
      { outcome: 'failed', status_code: 500, error: 'receiver answered 500' },
      { outcome: 'failed', status_code: 500, error: 'receiver answered 500' },
      { outcome: 'delivered', status_code: 200, error: null },
    ]);
    expect((await deliveriesFor(t, event.eventId))[0]).toMatchObject({ status: 'delivered', failures: 2 });
  });

  it('a receiver that never answers 2xx is retried on schedule and discarded 72 hours after the event', async () => {
    const { environmentId, receiver } = await setup();
    receiver.answer = () => ({ status: 503 });
    const occurredAt = clock.now();
    const event = await appendEvent(t, { environmentId, occurredAt });
    const [row] = await queued(t, event.eventId);
    let outcome = (await dispatcher.runOnce())[0];
    let attempts = 1;
    while (outcome === 'pending') {
      const [state] = await deliveriesFor(t, event.eventId);
      expect(state.next_attempt_at!.getTime()).toBeLessThanOrEqual(occurredAt.getTime() + 72 * HOUR);
      clock.set(state.next_attempt_at!);
      [outcome] = await dispatcher.runOnce();
      attempts++;
      expect(attempts).toBeLessThan(40);
    }
    expect(outcome).toBe('discarded');
    // 30 s doubling to the 6 h cap: the nominal schedule has 20 retries (21 attempts) in 72 hours. Jitter (±20 %)
    // bounds it: every delay 20 % longer gives 19 attempts, every delay 20 % shorter 24.
    expect(nominalRetrySchedule().length + 1).toBe(21);
    expect(attempts).toBeGreaterThanOrEqual(19);
    expect(attempts).toBeLessThanOrEqual(24);
    console.log(
      `never-2xx receiver: ${attempts} attempts before discard; last attempt ${((clock.now().getTime() - occurredAt.getTime()) / HOUR).toFixed(2)} h after the event`,
    );
    expect(receiver.requests).toHaveLength(attempts);
    expect(clock.now().getTime() - occurredAt.getTime()).toBeGreaterThan(60 * HOUR);
    expect(await attemptsOf(row.id)).toHaveLength(attempts);
    const [final] = await deliveriesFor(t, event.eventId);
    expect(final).toMatchObject({ status: 'discarded', failures: attempts, next_attempt_at: null });
    clock.advance(100 * HOUR);
    expect(await dispatcher.runOnce()).toEqual([]);
    expect(receiver.requests).toHaveLength(attempts);
  });

  it('a delivery still queued after the window is discarded unsent; a manual redelivery sends it once', async () => {
    const { environmentId, as, receiver } = await setup();
    // Recorded 73 hours ago on the real clock: the window counts from there, not from occurredAt.
    clock.advance(-73 * HOUR);
    const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    clock.advance(73 * HOUR);
    const [row] = await queued(t, event.eventId);
    expect(await dispatcher.runOnce()).toEqual(['discarded']);
    expect(receiver.requests).toHaveLength(0);
    expect(await attemptsOf(row.id)).toEqual([]);

    const accepted = await t.request('POST', `/webhooks/deliveries/${row.id}/redeliver`, as);
    expect(accepted.status).toBe(202);
    expect(accepted.body.status).toBe('pending');
    expect(await dispatcher.runOnce()).toEqual(['delivered']);
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0].rawBody).id).toBe(event.eventId);
    expect(await attemptsOf(row.id)).toEqual([{ outcome: 'delivered', status_code: 200, error: null }]);
  });

  it('redelivering a delivered notification sends it again with the same id and records a new attempt', async () => {
    const { environmentId, as, receiver } = await setup();
    const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    const [row] = await queued(t, event.eventId);
    expect(await dispatcher.runOnce()).toEqual(['delivered']);
    expect((await t.request('POST', `/webhooks/deliveries/${row.id}/redeliver`, as)).status).toBe(202);
    expect(await dispatcher.runOnce()).toEqual(['delivered']);
    expect(receiver.requests.map((r) => JSON.parse(r.rawBody).id)).toEqual([event.eventId, event.eventId]);
    expect(await attemptsOf(row.id)).toHaveLength(2);
  });

  it('honours Retry-After (seconds and HTTP date) as a lower bound', async () => {
    const { environmentId, receiver } = await setup();
    const retryAt = new Date(Math.ceil((clock.now().getTime() + 2 * HOUR) / 1000) * 1000);
    receiver.answer = (_, index) =>
      index === 0
        ? { status: 429, headers: { 'retry-after': '600' } }
        : index === 1
          ? { status: 503, headers: { 'retry-after': retryAt.toUTCString() } }
          : { status: 200 };
    const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    await queued(t, event.eventId);
    const start = clock.now().getTime();
    await dispatcher.runOnce();
    let [state] = await deliveriesFor(t, event.eventId);
    expect(state.next_attempt_at!.getTime() - start).toBe(600_000);
    clock.set(state.next_attempt_at!);
    await dispatcher.runOnce();
    [state] = await deliveriesFor(t, event.eventId);
    // Whole seconds from the failure: due at the HTTP date, rounded up to the next second of the clock.
    expect(state.next_attempt_at!.getTime()).toBeGreaterThanOrEqual(retryAt.getTime());
    expect(state.next_attempt_at!.getTime()).toBeLessThan(retryAt.getTime() + 1000);
    clock.set(state.next_attempt_at!);
    expect(await dispatcher.runOnce()).toEqual(['delivered']);
  });

  it('a redirect is a failure and is not followed; a timeout is a failure', async () => {
    const { environmentId, receiver } = await setup();
    receiver.answer = (_, index) => (index === 0 ? { status: 302, headers: { location: receiver.url('/elsewhere') } } : { status: 200, delayMs: 1500 });
    const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    const [row] = await queued(t, event.eventId);
    expect(await dispatcher.runOnce()).toEqual(['pending']);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hooks']);
    clock.advance(HOUR);
    expect(await dispatcher.runOnce()).toEqual(['pending']);
    expect(await attemptsOf(row.id)).toEqual([
      { outcome: 'failed', status_code: 302, error: 'redirect not followed (302)' },
      { outcome: 'failed', status_code: null, error: 'timed out after 500 ms' },
    ]);
  });

  it('410 Gone stops delivery and disables the subscription (WebhookDisabled)', async () => {
    const { environmentId, as, receiver, subscription } = await setup();
    receiver.answer = () => ({ status: 410 });
    const first = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    const second = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    await queued(t, first.eventId);
    await queued(t, second.eventId);
    const outcomes = await dispatcher.runOnce(1);
    expect(outcomes).toEqual(['disabled']);
    const [event] = await t.dataSource.query(`select event_type, data, metadata from events where stream_id = $1 order by stream_version desc limit 1`, [
      subscription.id,
    ]);
    expect(event).toMatchObject({
      event_type: 'WebhookDisabled',
      data: { url: subscription.url, reason: 'receiver answered 410 Gone' },
      metadata: { actor: 'system:webhooks-dispatcher' },
    });
    const listed = await t.request('GET', '/webhooks', as);
    expect(listed.body.items).toEqual([expect.objectContaining({ id: subscription.id, status: 'disabled', disabledReason: 'receiver answered 410 Gone' })]);
    // The other queued notification is not sent, and later events are not queued.
    await eventually(async () => ((await deliveriesFor(t, second.eventId))[0]?.status === 'disabled' ? true : null));
    await eventually(async () => ((await deliveriesFor(t, first.eventId))[0]?.status === 'disabled' ? true : null));
    const later = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await deliveriesFor(t, later.eventId)).toEqual([]);
    expect(await dispatcher.runOnce()).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
    const rotate = await t.request('PUT', `/webhooks/${subscription.id}/rotate-key`, as);
    expect(rotate.status).toBe(409);
    // Subscribing again resumes with a new key.
    const again = await t.request('PUT', '/webhooks/subscribe', { body: { url: subscription.url }, ...as });
    expect(again.body.id).toBe(subscription.id);
    expect(again.body.signatureKey).not.toBe(subscription.signatureKey);
  });

  it('signs retries with the key current at the attempt (rotation is immediate)', async () => {
    const { environmentId, as, receiver, subscription } = await setup();
    receiver.answer = (_, index) => ({ status: index === 0 ? 500 : 200 });
    const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
    await queued(t, event.eventId);
    await dispatcher.runOnce();
    const rotated = (await t.request('PUT', `/webhooks/${subscription.id}/rotate-key`, as)).body;
    clock.set((await deliveriesFor(t, event.eventId))[0].next_attempt_at!);
    expect(await dispatcher.runOnce()).toEqual(['delivered']);
    const [old, fresh] = receiver.requests;
    expect(() => new Webhook(subscription.signatureKey).verify(old.rawBody, old.headers)).not.toThrow();
    expect(() => new Webhook(rotated.signatureKey).verify(fresh.rawBody, fresh.headers)).not.toThrow();
    expect(() => new Webhook(subscription.signatureKey).verify(fresh.rawBody, fresh.headers)).toThrow();
  });

  /** A second dispatcher on the same queue, optionally with its own policy and resolver. */
  function anotherDispatcher(config: Partial<WebhooksConfig> = {}, resolve?: Resolver): WebhookDispatcher {
    const merged = { ...t.app.get<WebhooksConfig>(WEBHOOKS_CONFIG), ...config };
    return new WebhookDispatcher(
      {
        dataSource: t.dataSource,
        clock: t.app.get(Clock),
        commands: t.app.get(CommandPath),
        vault: t.app.get(SignatureKeyVault),
        databaseUrl: null,
      },
      merged,
      new WebhookSender({ ...merged, resolve }),
    );
  }

  describe('a destination refused by the address policy at delivery time', () => {
    const FORBIDDEN = 'the destination address is not allowed';

    it('a name that resolves to 127.0.0.1 when sending fails at once as refused: one attempt, no retry, reason without the address', async () => {
      // rebind.test passes the subscribe-time check (a public-looking name); only the delivery-time answer is internal.
      const { environmentId, as, receiver, subscription } = await setup();
      const rebound = await t.request('PUT', '/webhooks/subscribe', {
        body: { url: `https://rebind.test:${receiver.port}/hooks` },
        ...as,
      });
      expect(rebound.status).toBe(200);
      await t.request('DELETE', `/webhooks/${subscription.id}`, as); // only the rebinding subscription remains
      const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
      const [row] = await queued(t, event.eventId);
      expect(row.subscription_id).toBe(rebound.body.id);

      const strict = anotherDispatcher({ allowPrivateNetworks: false }, async () => [{ address: '127.0.0.1', family: 4 }]);
      expect(await strict.runOnce()).toEqual(['refused']);
      expect(receiver.requests).toHaveLength(0);
      expect(await attemptsOf(row.id)).toEqual([{ outcome: 'failed', status_code: null, error: FORBIDDEN }]);
      const [state] = await deliveriesFor(t, event.eventId);
      expect(state).toMatchObject({ status: 'refused', failures: 1, next_attempt_at: null });

      // Nothing is scheduled: not in 30 s, not within the 72-hour window.
      for (const step of [30_000, HOUR, 71 * HOUR]) {
        clock.advance(step);
        expect(await strict.runOnce()).toEqual([]);
        expect(await dispatcher.runOnce()).toEqual([]);
      }
      expect(receiver.requests).toHaveLength(0);

      // The API shows the refusal and its reason, and nowhere what the name resolved to.
      const listed = await t.request('GET', `/webhooks/${rebound.body.id}/deliveries`, as);
      expect(listed.body.items).toEqual([
        expect.objectContaining({
          id: row.id,
          status: 'refused',
          failures: 1,
          nextAttemptAt: null,
          deliveredAt: null,
          lastStatusCode: null,
          lastError: FORBIDDEN,
          attempts: [expect.objectContaining({ outcome: 'failed', statusCode: null, error: FORBIDDEN })],
        }),
      ]);
      expect(listed.text).not.toContain('127.0.0.1');
      expect(listed.text).not.toContain('loopback');
      const [stored] = await t.dataSource.query(`select last_error from webhook_deliveries where id = $1`, [row.id]);
      expect(stored.last_error).toBe(FORBIDDEN);
      strict.sender.close();
    });

    it('the subscription stays active: later notifications are queued and checked afresh, and a refused one can be redelivered', async () => {
      const { environmentId, as, receiver, subscription } = await setup();
      const first = await appendEvent(t, { environmentId, occurredAt: clock.now() });
      const [row] = await queued(t, first.eventId);
      const strict = anotherDispatcher({ allowPrivateNetworks: false });
      expect(await strict.runOnce()).toEqual(['refused']);

      // No WebhookDisabled: the subscription is listed active and still receives events.
      const [last] = await t.dataSource.query(`select event_type from events where stream_id = $1 order by stream_version desc limit 1`, [subscription.id]);
      expect(last.event_type).toBe('WebhookSubscribed');
      const listed = await t.request('GET', '/webhooks', as);
      expect(listed.body.items).toEqual([expect.objectContaining({ id: subscription.id, status: 'active', disabledReason: null })]);
      const second = await appendEvent(t, { environmentId, occurredAt: clock.now() });
      await queued(t, second.eventId);

      // Later the destination is allowed (standing in for a name that now resolves to a public address: a
      // dispatcher whose policy allows the local receiver). The queued notification and the redelivery go out.
      const later = anotherDispatcher({ allowPrivateNetworks: true });
      clock.advance(60_000); // attempts are listed by time: keep the refused one first
      expect(await later.runOnce()).toEqual(['delivered']);
      const redelivered = await t.request('POST', `/webhooks/deliveries/${row.id}/redeliver`, as);
      expect(redelivered.status).toBe(202);
      expect(redelivered.body).toMatchObject({ status: 'pending' });
      expect(await later.runOnce()).toEqual(['delivered']);
      expect(receiver.requests.map((r) => JSON.parse(r.rawBody).id).sort()).toEqual([first.eventId, second.eventId].sort());
      expect(await attemptsOf(row.id)).toEqual([
        { outcome: 'failed', status_code: null, error: FORBIDDEN },
        { outcome: 'delivered', status_code: 200, error: null },
      ]);
      strict.sender.close();
      later.sender.close();
    });
  });

  describe('at-least-once with several dispatchers', () => {
    it('a dispatcher that dies after claiming loses nothing: once the lease expires another delivers', async () => {
      const { environmentId, receiver } = await setup();
      const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
      const [row] = await queued(t, event.eventId);
      const crashed = anotherDispatcher();
      const claimed = await crashed.claim(10);
      expect(claimed.map((c) => c.id)).toEqual([row.id]);
      // "Crash": nothing is sent or recorded. While the lease holds, nobody else takes it.
      expect(await dispatcher.runOnce()).toEqual([]);
      clock.advance(29_000);
      expect(await dispatcher.runOnce()).toEqual([]);
      clock.advance(1_000); // lease (30 s) expired
      expect(await dispatcher.runOnce()).toEqual(['delivered']);
      expect(receiver.requests).toHaveLength(1);
      // The crashed dispatcher coming back late cannot overwrite the outcome.
      receiver.answer = () => ({ status: 500 });
      expect(await crashed.deliver(claimed[0])).toBe('lease-lost');
      expect((await deliveriesFor(t, event.eventId))[0].status).toBe('delivered');
      crashed.sender.close();
    });

    it('two dispatchers running at once deliver each notification once', async () => {
      const { environmentId, receiver } = await setup();
      const events = [];
      for (let i = 0; i < 30; i++) events.push(await appendEvent(t, { environmentId, occurredAt: clock.now() }));
      await queued(t, events[29].eventId);
      await queued(t, events[0].eventId);
      const second = anotherDispatcher();
      const rounds = await Promise.all([
        dispatcher.runOnce(5),
        second.runOnce(5),
        dispatcher.runOnce(5),
        second.runOnce(5),
        dispatcher.runOnce(10),
        second.runOnce(10),
      ]);
      const outcomes = rounds.flat();
      expect(outcomes).toHaveLength(30);
      // No notification is claimed by both dispatchers at once. On a loaded machine an attempt may time out and be
      // rescheduled ('pending', at-least-once): those are sent again until every notification is delivered.
      for (let retries = 0; outcomes.filter((o) => o === 'delivered').length < 30 && retries < 10; retries++) {
        clock.advance(7 * 3600 * 1000);
        outcomes.push(...(await dispatcher.runOnce()));
      }
      expect(outcomes.filter((o) => o === 'delivered')).toHaveLength(30);
      expect(outcomes.filter((o) => o !== 'delivered' && o !== 'pending')).toEqual([]);
      expect(await dispatcher.runOnce()).toEqual([]);
      const ids = receiver.requests.map((r) => JSON.parse(r.rawBody).id);
      expect(new Set(ids)).toEqual(new Set(events.map((e) => e.eventId)));
      expect(ids.length).toBeLessThanOrEqual(30 + outcomes.filter((o) => o === 'pending').length);
      second.sender.close();
    });

    it('a dispatcher that does not allow private networks refuses to connect to loopback (localhost) at delivery time, for good', async () => {
      const { environmentId, receiver } = await setup();
      const event = await appendEvent(t, { environmentId, occurredAt: clock.now() });
      const [row] = await queued(t, event.eventId);
      const strict = anotherDispatcher({ allowPrivateNetworks: false });
      expect(await strict.runOnce()).toEqual(['refused']);
      expect(receiver.requests).toHaveLength(0);
      expect(await attemptsOf(row.id)).toEqual([{ outcome: 'failed', status_code: null, error: 'the destination address is not allowed' }]);
      expect((await deliveriesFor(t, event.eventId))[0]).toMatchObject({ status: 'refused', next_attempt_at: null });
      clock.advance(HOUR);
      expect(await strict.runOnce()).toEqual([]);
      strict.sender.close();
    });
  });
});
