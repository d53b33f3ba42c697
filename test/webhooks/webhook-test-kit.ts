/**
 * Helpers for the webhooks e2e tests: a self-signed certificate made with the
 * openssl CLI, a local HTTPS receiver whose answers the test scripts, events
 * appended straight to the event store (independent of other contexts), and
 * polling for eventual effects.
 */
import { execFileSync } from 'node:child_process';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { EventStore } from '@billing/event-store';
import { Module } from '@nestjs/common';
import { BoundedContext } from '@billing/platform';
import { eventually as waitFor, TestApp } from '@billing/testing';

export interface TestCertificate {
  readonly dir: string;
  readonly key: string;
  readonly cert: string;
  readonly certFile: string;
  remove(): void;
}

/** Node cannot create X.509 certificates itself: the openssl CLI writes a throwaway key and self-signed cert. */
export function createSelfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-cert-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,DNS:rebind.test,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1',
    ],
    { stdio: 'pipe' },
  );
  return {
    dir,
    key: readFileSync(keyFile, 'utf8'),
    cert: readFileSync(certFile, 'utf8'),
    certFile,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly rawBody: string;
  readonly receivedAt: number;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Wait this long before answering (timeouts). */
  readonly delayMs?: number;
}

/** An HTTPS receiver: records every request and answers with `answer(request, index)` (default 200). */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  answer: (request: ReceivedRequest, index: number) => ScriptedAnswer = () => ({ status: 200 });
  private server!: Server;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly certificate: TestCertificate) {}

  async start(): Promise<this> {
    this.server = createServer({ key: this.certificate.key, cert: this.certificate.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request: ReceivedRequest = {
          path: req.url ?? '/',
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)])),
          rawBody: Buffer.concat(chunks).toString('utf8'),
          receivedAt: performance.now(),
        };
        const index = this.requests.length;
        this.requests.push(request);
        const { status, headers, delayMs } = this.answer(request, index);
        const reply = () => {
          if (res.destroyed) return;
          res.writeHead(status, headers);
          res.end('ok');
        };
        if (delayMs) setTimeout(reply, delayMs);
        else reply();
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hooks'): string {
    return `https://localhost:${this.port}${path}`;
  }

  /** Resolves once at least `count` requests arrived. */
  async waitForRequests(count: number, timeoutMs = 5000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${this.requests.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.requests;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The `signature` member check, with node:crypto only, exactly as the README's
 * recipe (strip the member textually, HMAC `<id>.<timestamp>.<signed body>`).
 * Returns false for a body without the member or with a wrong signature.
 */
export function verifySignatureMember(raw: string, signatureKey: string): boolean {
  const match = /,"signature":"([0-9a-f]{64})"\}$/.exec(raw);
  if (!match) return false;
  const signed = raw.slice(0, match.index) + '}';
  const { id, timestamp } = JSON.parse(signed);
  const key = Buffer.from(signatureKey.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${signed}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[1], 'hex'));
}

/** A tiny resource (stream type `test-price`) whose events are announced as price.* webhooks. */
type TestPriceEvent = DomainEvent<'PriceCreated' | 'PriceUpdated', { name: string; amount: number }>;
interface TestPriceState {
  id: string | null;
  name: string;
  amount: number;
  revision: number;
}
const testPriceEvolver: Evolver<TestPriceState, TestPriceEvent> = {
  initialState: () => ({ id: null, name: '', amount: 0, revision: 0 }),
  evolve: (state, event) => ({ ...state, name: event.data.name, amount: event.data.amount, revision: state.revision + 1 }),
};
export const TEST_PRICE_STREAM = 'test-price';

@Module({})
class TestPriceModule {}

/**
 * A context that only publishes: its `test-price` stream is announced as
 * price.* notifications carrying the folded resource, exactly as a real
 * context declares them.
 */
export const testPriceContext: BoundedContext = {
  name: 'test-prices',
  module: TestPriceModule,
  migrations: [],
  streams: [
    {
      type: TEST_PRICE_STREAM,
      idScheme: 'random uuid',
      events: [
        { type: 'PriceCreated', schemaVersion: 1 },
        { type: 'PriceUpdated', schemaVersion: 1 },
      ],
      view: { evolver: testPriceEvolver, toView: (state: TestPriceState) => ({ name: state.name, amount: state.amount, revision: state.revision }) },
    },
  ],
  projections: [],
  reactors: [],
  notifications: [
    { name: 'price.created', streamType: TEST_PRICE_STREAM, eventType: 'PriceCreated', description: 'test' },
    { name: 'price.updated', streamType: TEST_PRICE_STREAM, eventType: 'PriceUpdated', description: 'test' },
    // One event, two notifications, the second narrowed by the event's data (as invoicing declares them).
    { name: 'invoice.settlement_added', streamType: 'test-invoice', eventType: 'InvoiceSettlementAdded', description: 'test' },
    {
      name: 'invoice.settled',
      streamType: 'test-invoice',
      eventType: 'InvoiceSettlementAdded',
      description: 'test',
      when: (data) => (data as { settlementStatus?: string }).settlementStatus === 'settled',
    },
  ],
  problems: {},
};

export interface AppendedEvent {
  readonly eventId: string;
  readonly streamId: string;
}

/** Appends one event as another context would; returns after commit. */
export async function appendEvent(
  t: TestApp,
  options: {
    environmentId?: string;
    type?: string;
    streamType?: string;
    streamId?: string;
    version?: number | 'no_stream';
    data?: unknown;
    occurredAt: Date;
  },
): Promise<AppendedEvent> {
  const eventId = randomUUID();
  const streamId = options.streamId ?? randomUUID();
  await t.app.get(EventStore).append(
    [
      {
        stream: { environmentId: options.environmentId ?? t.environmentId, streamType: options.streamType ?? TEST_PRICE_STREAM, streamId },
        expectedVersion: options.version ?? 'no_stream',
        events: [
          {
            eventId,
            type: options.type ?? 'PriceCreated',
            schemaVersion: 1,
            data: options.data ?? { name: 'Gold', amount: 1250 },
            occurredAt: options.occurredAt,
          },
        ],
      },
    ],
    { actor: 'test', requestId: null, correlationId: randomUUID(), causationId: null },
  );
  return { eventId, streamId };
}

/** Polls `probe` until it returns a truthy value (the shared helper, with this kit's shorter deadline). */
export async function eventually<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 5000, label = 'condition'): Promise<T> {
  return (await waitFor(probe, Boolean, { timeoutMs, what: label })) as T;
}

export interface DeliveryRow {
  id: string;
  status: string;
  failures: number;
  next_attempt_at: Date | null;
  subscription_id: string;
  notification_id: string;
  environment_id: string;
}

export async function deliveriesFor(t: TestApp, notificationId: string): Promise<DeliveryRow[]> {
  return t.dataSource.query(
    `select id, status, failures, next_attempt_at, subscription_id, notification_id, environment_id
       from webhook_deliveries where notification_id = $1 order by subscription_id`,
    [notificationId],
  );
}

/** Waits until the fan-out projection has queued `count` deliveries for the notification. */
export function queued(t: TestApp, notificationId: string, count = 1): Promise<DeliveryRow[]> {
  return eventually(
    async () => {
      const rows = await deliveriesFor(t, notificationId);
      return rows.length >= count ? rows : null;
    },
    5000,
    `${count} deliveries of ${notificationId}`,
  );
}
