import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { DEVELOPMENT_JWT_SECRET } from '@billing/platform';
import { createTestDatabase, eventually, TestDatabase } from '@billing/testing';
import { buildService, freePort, killLeftoverServices, ServiceProcess, startService } from './process-support';

/**
 * Issue 41 #10: a write of a row and an event, the process killed between the two (FAULT_KILL_AT kills it with
 * SIGKILL at that point). Nothing may be left half done: no e-mail delivery `sent` without its EmailSent event, no
 * webhook delivery `disabled` by a 410 while its subscription stays active. A second process, once the dead one's
 * lease has run out, carries the work through to both.
 */
describe('row and event across a kill -9 between them', () => {
  jest.setTimeout(180_000);
  let build: ReturnType<typeof buildService>;
  let database: TestDatabase;
  let db: Client;
  let dataDir: string;

  beforeAll(async () => {
    build = buildService();
    database = await createTestDatabase();
    db = new Client({ connectionString: database.url });
    await db.connect();
    dataDir = mkdtempSync(join(tmpdir(), 'billing-outcomes-crash-'));
  });

  afterAll(async () => {
    killLeftoverServices();
    await db?.end();
    await database?.drop();
    build?.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const sql = async <Row = any>(text: string, values: unknown[] = []): Promise<Row[]> => (await db.query(text, values)).rows as Row[];

  async function start(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; baseUrl: string }> {
    const port = await freePort();
    const service = startService(build.main, {
      DATABASE_URL: database.url,
      PORT: String(port),
      // Development: mail is written to <DATA_DIR>/mail (no SMTP server needed).
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      EMAIL_POLL_INTERVAL_MS: '100',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_INSECURE_HTTP: 'true',
      LOG_LEVEL: 'warn',
      ...env,
    });
    await service.waitForReady(60_000);
    return { service, baseUrl: `http://127.0.0.1:${port}` };
  }

  function client(baseUrl: string, environment: string) {
    const token = sign({ environments: [environment] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS256', subject: 'outcomes-crash', expiresIn: 3600 });
    return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'x-environment': environment, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };
  }

  /** A request whose answer a kill cut off. */
  const lost = () => 'lost' as const;

  /** The dead process's leases run out now (they would after their 60 s). */
  const expireLeases = async (table: 'email_deliveries' | 'webhook_deliveries') =>
    sql(`update ${table} set lease_expires_at = now() - interval '1 second' where lease_expires_at is not null`);

  it('e-mail: killed between the delivery row and its outcome event, neither is kept; the next process records both', async () => {
    const environment = randomUUID();
    const first = await start({ FAULT_KILL_AT: 'email-outcome' });
    const call = client(first.baseUrl, environment);
    const customer = await call('POST', '/customers', { name: 'Acme Oy', email: 'billing@acme.example' });
    expect(customer.status).toBe(201);
    const invoice = await call('POST', '/invoices', { customerId: customer.body.id, currency: 'EUR', items: [{ quantity: 1, unitAmount: 4200 }] });
    expect(invoice.status).toBe(201);
    // The mail goes out, the dispatcher records it, and the process dies between its row and its event (on a slow
    // machine perhaps before this answer is sent: the mail is sent only once the booking has committed).
    expect([200, 'lost']).toContain(await call('PUT', `/invoices/${invoice.body.id}/book`).then(({ status }) => status, lost));
    expect(await first.service.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const sentWithoutEvent = `select count(*)::int as n from email_deliveries d where d.environment_id = $1 and d.status = 'sent'
        and not exists (select 1 from events e where e.environment_id = d.environment_id and e.stream_id = d.id and e.event_type = 'EmailSent')`;
    const deliveries = () => sql<{ status: string }>(`select status from email_deliveries where environment_id = $1`, [environment]);
    expect(await sql(sentWithoutEvent, [environment])).toEqual([{ n: 0 }]);
    expect(await deliveries()).toEqual([{ status: 'queued' }]);

    await expireLeases('email_deliveries');
    const second = await start();
    try {
      const emailSent = async () =>
        (await sql<{ n: number }>(`select count(*)::int as n from events where environment_id = $1 and event_type = 'EmailSent'`, [environment]))[0].n;
      await eventually(emailSent, (n) => n === 1, { timeoutMs: 60_000, what: 'the EmailSent event' });
      expect(await deliveries()).toEqual([{ status: 'sent' }]);
      expect(await sql(sentWithoutEvent, [environment])).toEqual([{ n: 0 }]);
    } finally {
      second.service.child.kill('SIGTERM');
      await second.service.exited;
    }
  });

  it('webhooks: killed between a 410 disabling the subscription and the attempt row, the next process settles the delivery as disabled', async () => {
    let received = 0;
    const gone: Server = createServer((_request, response) => {
      received++;
      response.writeHead(410).end();
    });
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const environment = randomUUID();
    try {
      const first = await start({ FAULT_KILL_AT: 'webhook-disabled' });
      const call = client(first.baseUrl, environment);
      const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/hook`;
      expect((await call('PUT', '/webhooks/subscribe', { url })).status).toBe(200);
      // Its notification is sent once it committed, perhaps before its answer: the kill may beat the answer.
      expect([201, 'lost']).toContain(await call('POST', '/products', { name: 'Plans' }).then(({ status }) => status, lost));
      expect(await first.service.exited).toEqual({ code: null, signal: 'SIGKILL' });

      const disabled = async () =>
        (await sql<{ n: number }>(`select count(*)::int as n from events where environment_id = $1 and event_type = 'WebhookDisabled'`, [environment]))[0].n;
      expect(await disabled()).toBe(1);
      const deliveries = () => sql<{ status: string }>(`select status from webhook_deliveries where environment_id = $1`, [environment]);
      expect(await deliveries()).toEqual([{ status: 'pending' }]);

      await expireLeases('webhook_deliveries');
      const sentBefore = received;
      const second = await start();
      try {
        await eventually(deliveries, (rows) => rows.length === 1 && rows[0].status === 'disabled', { timeoutMs: 60_000, what: 'the delivery settled' });
        // Settled from the subscription's state: nothing more was sent to the receiver that said Gone.
        expect(received).toBe(sentBefore);
      } finally {
        second.service.child.kill('SIGTERM');
        await second.service.exited;
      }
    } finally {
      gone.close();
    }
  });
});
