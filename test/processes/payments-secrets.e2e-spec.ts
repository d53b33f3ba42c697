import { randomBytes, randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { DEVELOPMENT_JWT_SECRET } from '@billing/platform';
import { createTestDatabase, TestDatabase } from '@billing/testing';
import { createSelfSignedCertificate, Receiver, TestCertificate } from '../webhooks/webhook-test-kit';
import { buildService, freePort, killLeftoverServices, ServiceProcess, sleep, startService } from './process-support';

/**
 * Issue: "credentials never appear in any response, event row, notification
 * or log line (grep the raw tables and logs in the test)". A real service
 * process logging at debug; the sandbox is enabled with a unique secret,
 * rotated, refused with malformed ones; payments of every outcome (one
 * resolved by the worker), a refund, a webhook receiver getting the
 * notifications. Then every response, the process's whole output, every
 * row of every table of the database (events, the payments context's
 * tables, webhook notifications and deliveries, idempotency keys) and every
 * delivered webhook are searched for each secret and for its middle part.
 */
describe('payment provider credentials never leave the vault', () => {
  jest.setTimeout(180_000);
  const fresh = () => `sk_sandbox_${randomBytes(16).toString('hex')}`;
  const SECRET = fresh();
  const ROTATED = fresh();
  /** Sent only in requests that are refused: they must not be echoed or logged either. */
  const REFUSED = [fresh(), fresh(), fresh()];
  const SECRETS = [SECRET, ROTATED, ...REFUSED];
  /** Each secret and a part of it that is neither its prefix nor its hint. */
  const NEEDLES = SECRETS.flatMap((secret) => [secret, secret.slice(15, 31)]);

  let build: ReturnType<typeof buildService>;
  let database: TestDatabase;
  let db: Client;
  let certificate: TestCertificate;
  let receiver: Receiver;
  let service: ServiceProcess;

  beforeAll(async () => {
    build = buildService();
    database = await createTestDatabase();
    db = new Client({ connectionString: database.url });
    await db.connect();
    certificate = createSelfSignedCertificate();
    receiver = await new Receiver(certificate).start();
  });

  afterAll(async () => {
    killLeftoverServices();
    await receiver?.stop();
    certificate?.remove();
    await db?.end();
    await database?.drop();
    build?.remove();
  });

  it('no secret, nor its middle, in any response, log line, table row or webhook; the hint is shown', async () => {
    const port = await freePort();
    service = startService(build.main, {
      DATABASE_URL: database.url,
      PORT: String(port),
      LOG_LEVEL: 'debug',
      PAYMENTS_RESOLVE_AFTER_MS: '500',
      PAYMENTS_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_CA_FILE: certificate.certFile,
      WEBHOOK_POLL_INTERVAL_MS: '100',
    });
    await service.waitForReady(60_000);
    const environment = randomUUID();
    const token = sign({ environments: [environment] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS256', subject: 'secrets-test', expiresIn: 3600 });
    const responses: string[] = [];
    const call = async (method: string, path: string, body?: unknown, keyed = false): Promise<{ status: number; body: any }> => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'x-environment': environment,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(keyed ? { 'idempotency-key': randomUUID() } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      responses.push(`${method} ${path} ${response.status} ${JSON.stringify([...response.headers])} ${text}`);
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };

    expect((await call('PUT', '/webhooks/subscribe', { url: receiver.url() })).status).toBe(200);
    // Enable (with a key: its response is stored), rotate, and three refusals carrying secrets.
    const enabled = await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } }, true);
    expect(enabled.body.credentialsHint).toBe(SECRET.slice(-4));
    const rotated = await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: ROTATED } });
    expect(rotated.body.credentialsHint).toBe(ROTATED.slice(-4));
    expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: `${REFUSED[0]} ` } }, true)).status).toBe(422);
    expect((await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET, apiKey: REFUSED[1] } })).status).toBe(422);
    expect((await call('POST', '/paymentproviders/enable', { name: 'manual', credentials: { secretKey: REFUSED[2] } }, true)).status).toBe(422);
    expect((await call('GET', '/paymentproviders')).body.items).toEqual([expect.objectContaining({ name: 'sandbox', credentialsHint: ROTATED.slice(-4) })]);

    // Payments of every outcome; the timeout is resolved by the worker; a refund.
    const invoice = async (amount: number) => {
      const created = await call('POST', '/invoices', {
        customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' },
        currency: 'EUR',
        items: [{ title: 'Plan', quantity: 1, unitAmount: amount }],
      });
      expect((await call('PUT', `/invoices/${created.body.id}/book`, {})).status).toBe(200);
      return created.body.id as string;
    };
    const pay = (invoiceId: string, paymentToken: string, keyed = false) =>
      call('POST', '/payments', { invoiceId, paymentMethod: { provider: 'sandbox', token: paymentToken } }, keyed);
    const outcomes: Record<string, string> = {};
    for (const paymentToken of ['tok_decline', 'tok_insufficient_funds', 'tok_gateway_error', 'tok_unknown']) {
      outcomes[paymentToken] = (await pay(await invoice(1_000), paymentToken, true)).body.status;
    }
    const paid = await pay(await invoice(1_000), 'tok_success', true);
    const pending = await pay(await invoice(1_000), 'tok_timeout');
    expect({ ...outcomes, tok_success: paid.body.status, tok_timeout: pending.body.status }).toEqual({
      tok_decline: 'failed',
      tok_insufficient_funds: 'failed',
      tok_gateway_error: 'failed',
      tok_unknown: 'failed',
      tok_success: 'succeeded',
      tok_timeout: 'pending',
    });
    expect((await call('PUT', `/payments/${paid.body.id}/refund`, { amount: 300 }, true)).status).toBe(200);
    for (let tries = 0; tries < 200 && (await call('GET', `/payments/${pending.body.id}`)).body.status === 'pending'; tries++) await sleep(100);
    expect((await call('GET', `/payments/${pending.body.id}`)).body.status).toBe('succeeded');
    expect((await call('GET', '/payments?limit=100')).body.items).toHaveLength(6);
    await call('PUT', '/paymentproviders/sandbox/disable', {});

    // The notifications arrive (the timeout's success among them) and are delivered.
    const received = async () => receiver.requests.map((r) => JSON.parse(r.rawBody) as { type: string; data: { id?: string } });
    for (let tries = 0; tries < 300; tries++) {
      const all = await received();
      if (
        all.some((b) => b.type === 'payment.refunded') &&
        all.some((b) => b.type === 'payment.succeeded' && b.data.id === pending.body.id) &&
        all.some((b) => b.type === 'payment_provider.disabled')
      )
        break;
      await sleep(100);
    }
    const types = new Set((await received()).map((b) => b.type));
    for (const type of ['payment_provider.enabled', 'payment_provider.disabled', 'payment.created', 'payment.succeeded', 'payment.failed', 'payment.refunded'])
      expect(types).toContain(type);
    await sleep(500);

    // Every table of the database, every row as text.
    const tables = (
      await db.query(`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`)
    ).rows.map((r: { table_name: string }) => r.table_name);
    for (const table of [
      'events',
      'payments',
      'payment_providers',
      'sandbox_gateway_charges',
      'webhook_notifications',
      'webhook_deliveries',
      'webhook_delivery_attempts',
      'idempotency_keys',
    ]) {
      expect(tables).toContain(table);
    }
    const found: string[] = [];
    const rowsWith = async (table: string, needle: string) =>
      (await db.query(`select count(*)::int as n from "${table}" t where strpos(t::text, $1) > 0`, [needle])).rows[0].n as number;
    for (const table of tables) {
      for (const needle of NEEDLES) {
        const n = await rowsWith(table, needle);
        if (n > 0) found.push(`${table}: ${n} row(s) with ${needle}`);
      }
    }
    // The search works: the hints and ids it is not looking for are there to be found.
    expect(await rowsWith('events', ROTATED.slice(-4))).toBeGreaterThan(0);
    expect(await rowsWith('webhook_notifications', paid.body.id)).toBeGreaterThan(0);
    expect(await rowsWith('idempotency_keys', SECRET.slice(-4))).toBeGreaterThan(0);

    // The process's whole output, at debug; responses; delivered webhooks (bodies and headers).
    const output = service.output();
    expect(service.logLines().length).toBeGreaterThan(0);
    for (const needle of NEEDLES) {
      if (output.includes(needle))
        found.push(
          `process output: ${output
            .split('\n')
            .find((line) => line.includes(needle))
            ?.slice(0, 300)}`,
        );
      for (const response of responses) if (response.includes(needle)) found.push(`response: ${response.slice(0, 300)}`);
      for (const request of receiver.requests) {
        if (request.rawBody.includes(needle) || JSON.stringify(request.headers).includes(needle)) found.push(`webhook: ${request.rawBody.slice(0, 300)}`);
      }
    }
    expect(found).toEqual([]);
    // The hint is allowed, and shown.
    expect(responses.some((response) => response.includes(`"credentialsHint":"${ROTATED.slice(-4)}"`))).toBe(true);

    service.child.kill('SIGTERM');
    await service.exited;
    const after = service.output();
    for (const needle of NEEDLES) expect(after.includes(needle)).toBe(false);
  });
});
