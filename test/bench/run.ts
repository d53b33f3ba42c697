/**
 * `npm run bench`: one run that measures, with load from separate processes
 * (autocannon in a child process, or pgbench):
 *
 * 1. raw Postgres doing the same durable write as an invoice command (one
 *    ~600 B jsonb event row + one outbox row per transaction), with pgbench
 *    (or, without pgbench on PATH, a pg child process);
 * 2. a bare Fastify route answering ~1 KB of JSON;
 * 3. the service as its own process: POST /invoices, the same with one webhook
 *    subscription, PUT /invoices/{id}, GET /invoices/{id}, GET /invoices, and
 *    POST /invoices again at half the measured maximum rate;
 * 4. the billing engine: 10 000 due subscriptions billed by one test-clock advance,
 *    in one service process and again in three, with a concurrent GET /invoices/{id} reader;
 * 5. a rebuild of every projection over at least 200 000 events;
 * 6. usage ingestion: POST /usage-events with batches of 1 000 new events;
 * 7. usage aggregation: GET /subscriptions/{id}/usage over a period of
 *    1 000 000 events, per aggregation (count, sum, max, unique_count).
 *
 * Prints a table and writes it to docs/BENCHMARKS.md. Uses DATABASE_URL when
 * set, else an embedded Postgres in a temporary folder; the bench database is
 * dropped and every child process stopped at the end, also on failure.
 *
 * Settings: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (16),
 * BENCH_REBUILD_EVENTS (200000), BENCH_REBUILD_TIMEOUT_SECONDS (100), BENCH_BILLING_SUBSCRIPTIONS (10000),
 * BENCH_BILLING_PROCESSES (3: the billing engine again with that many service processes; 1: only once),
 * BENCH_RAW=pg (use the pg child even when pgbench is there),
 * BENCH_REPORT (file to write, default docs/BENCHMARKS.md; "-" for none),
 * BENCH_REPORT_HEADING (section heading, default "Latest run"), BENCH_KEEP_DATABASE=1
 * (do not drop the bench database, for debugging), BENCH_ONLY=usage (only the
 * usage ingestion scenario), BENCH_ONLY=billing (only the billing engine),
 * BENCH_ONLY=rebuild (only the rebuild, over a log of the template invoices alone) or
 * BENCH_ONLY=http (the raw anchors and the HTTP scenarios, no usage, billing
 * engine or rebuild), BENCH_ONLY=webhook (POST /invoices without and with a webhook subscription only), BENCH_USAGE_BATCH (1000),
 * BENCH_USAGE_AGGREGATED (1000000: the events of each aggregated period),
 * BENCH_CPU_PROFILE_DIR (when set, every service process writes a V8 CPU profile into that folder at its exit).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { ensureDatabase, startEmbeddedPostgres } from '../../apps/api/src/database/embedded-postgres';
import { Child, firstJsonLine, startChild, stopAllChildren, stopChild, waitExit } from './children';
import type { LoadSpec } from './load';
import type { RawPgSpec } from './raw-pg';
import { LoadResult, quantile, sortedLatencies } from './stats';

const SECONDS = positive('BENCH_SECONDS', 10);
const WARMUP_SECONDS = positive('BENCH_WARMUP_SECONDS', 2, true);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 16);
const REBUILD_EVENTS = positive('BENCH_REBUILD_EVENTS', 200_000);
const REBUILD_TIMEOUT_SECONDS = positive('BENCH_REBUILD_TIMEOUT_SECONDS', 100);
const BILLING_SUBSCRIPTIONS = positive('BENCH_BILLING_SUBSCRIPTIONS', 10_000);
const BILLING_PROCESSES = positive('BENCH_BILLING_PROCESSES', 3);
/** Connections per service process when several bill together. */
const BILLING_POOL_SIZE = 10;
const USAGE_BATCH = positive('BENCH_USAGE_BATCH', 1000);
const USAGE_AGGREGATED = positive('BENCH_USAGE_AGGREGATED', 1_000_000);
const ONLY = process.env.BENCH_ONLY;
/** Every service process writes a V8 CPU profile there when it exits (summarise with profile-summary). */
const CPU_PROFILE_FLAGS = process.env.BENCH_CPU_PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', resolve(process.env.BENCH_CPU_PROFILE_DIR)] : [];
/** Invoices created through the API (each then updated once) whose events are replicated for the rebuild. */
const TEMPLATE_INVOICES = 300;
/** Draft ids the PUT and GET-by-id scenarios rotate over. */
const ROTATION_IDS = 300;

/** dist/test/bench → the repository (or worktree) root. */
const ROOT = resolve(__dirname, '..', '..', '..');
const DIST = resolve(__dirname, '..', '..');
const REPORT_FILE = process.env.BENCH_REPORT ?? join(ROOT, 'docs', 'BENCHMARKS.md');
const REPORT_HEADING = process.env.BENCH_REPORT_HEADING ?? 'Latest run';
const KEEP_MARKER = '<!-- kept across runs: npm run bench rewrites everything above this line and keeps everything below it -->';
const JWT_SECRET = `bench-${randomBytes(16).toString('hex')}`;

function positive(name: string, fallback: number, zeroAllowed = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!zeroAllowed && value === 0))
    throw new Error(`${name} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number`);
  return value;
}

// ------------------------------------------------------------------ results

interface Row {
  readonly key: string;
  readonly scenario: string;
  readonly result: LoadResult | null;
  readonly failure?: string;
  readonly extra?: string;
}

interface Rebuild {
  readonly events: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly projections: Array<{ name: string; ms: number }>;
  readonly invoicesRebuilt: number;
  readonly invoiceStreams: number;
  readonly complete: boolean;
  /** perSecond is only an upper bound (the rebuild did not finish within the time limit). */
  readonly upperBound?: boolean;
  readonly note?: string;
}

const rows: Row[] = [];
const loadStart = loadavg()[0];
const failures: string[] = [];
let rebuild: Rebuild | null = null;
let rawTool = '';
let eventBytes = 0;
/** The billing engine: due subscriptions billed by one POST /test-clock/advance, per number of service processes. */
const billing: BillingRun[] = [];
/** GET /subscriptions/{id}/usage over USAGE_AGGREGATED events, per aggregation: the median of 3 timed reads after one warm-up. */
const aggregations: { aggregation: string; events: number; medianMs: number; quantity: number }[] = [];
let deliveries: { received: number; receivedDuringLoad: number; expected: number; drainSeconds: number } | null = null;

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function attempt<T>(what: string, action: () => Promise<T>): Promise<T | null> {
  try {
    return await action();
  } catch (error) {
    const message = `${what}: ${String((error as Error)?.message ?? error)}`;
    failures.push(message);
    log(`FAILED ${message}`);
    return null;
  }
}

// ------------------------------------------------------------------ helpers

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function withClient<T>(url: string, action: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, application_name: 'billing-bench' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function which(binary: string): string | null {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, binary);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      /* not here */
    }
  }
  return null;
}

let scratch = '';
function scratchFile(name: string): string {
  return join(scratch, `${Date.now()}-${Math.random().toString(36).slice(2)}-${name}`);
}

async function runLoad(
  name: string,
  spec: Omit<LoadSpec, 'out' | 'connections' | 'seconds' | 'warmupSeconds'> & { warmupSeconds?: number },
): Promise<LoadResult> {
  const full: LoadSpec = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, ...spec, out: scratchFile('result.json') };
  const specFile = scratchFile('spec.json');
  writeFileSync(specFile, JSON.stringify(full));
  log(
    `${name}: ${full.warmupSeconds} s warm-up + ${SECONDS} s, ${CONNECTIONS} connections${spec.overallRate ? `, ${spec.overallRate} requests/s${spec.pacing === 'paced' ? ' evenly paced' : ''}` : ''}`,
  );
  const child = startChild(`load (${name})`, process.execPath, [join(__dirname, 'load.js'), specFile]);
  const code = await waitExit(child, (SECONDS + WARMUP_SECONDS + 60) * 1000);
  if (code !== 0 || !existsSync(full.out)) throw new Error(`load generator exited with ${code}:\n${child.tail.join('\n')}`);
  const result = JSON.parse(readFileSync(full.out, 'utf8')) as LoadResult;
  log(
    `${name}: ${result.perSecond}/s, p50 ${result.p50} ms, p99 ${result.p99} ms, statuses ${JSON.stringify(result.statuses)}, errors ${result.errors}, timeouts ${result.timeouts}`,
  );
  return result;
}

// ------------------------------------------------------------------ 1. raw Postgres

/** An InvoiceCreated-like event body of about 600 bytes. */
function eventBody(): string {
  const body = {
    invoiceId: '0b6f2f4e-6a7d-4c53-9f4e-3f1d2a9b8c71',
    type: 'invoice',
    customer: { id: '7d2c9a10-5b3e-4f61-8a2d-1c0e9f8b7a65', handle: 'C-1', name: 'Bench Oy', billingAddress: null },
    currency: 'EUR',
    date: '2026-01-15',
    dueDate: null,
    memo: null,
    lines: [
      {
        id: 'a1b2c3d4-0001-4000-8000-000000000001',
        title: 'A',
        quantity: 2,
        unitAmount: 1999,
        discount: null,
        tax: { taxCode: null, taxRate: 0 },
        amount: 3998,
        taxAmount: 0,
      },
      {
        id: 'a1b2c3d4-0002-4000-8000-000000000002',
        title: 'B',
        quantity: 1,
        unitAmount: 500,
        discount: null,
        tax: { taxCode: null, taxRate: 0 },
        amount: 500,
        taxAmount: 0,
      },
    ],
    createdAt: '2026-01-15T10:00:00.000Z',
  };
  return JSON.stringify(body);
}

async function rawPostgres(databaseUrl: string): Promise<LoadResult> {
  const data = eventBody();
  eventBytes = Buffer.byteLength(data);
  const environmentId = randomUUID();
  const statements = [
    'BEGIN;',
    `INSERT INTO bench_raw_events (environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata) ` +
      `VALUES ('${environmentId}', 'invoice', gen_random_uuid(), 1, 'InvoiceCreated', 1, '${data.replace(/'/g, "''")}', '{"actor":"bench"}');`,
    'INSERT INTO bench_raw_outbox (event_position) VALUES (lastval());',
    'COMMIT;',
  ];
  await withClient(databaseUrl, async (client) => {
    // Shaped like the event store's table (same keys and indexes), plus an outbox.
    await client.query(`drop table if exists bench_raw_events, bench_raw_outbox`);
    await client.query(`
      create table bench_raw_events (
        global_position bigint generated always as identity primary key,
        transaction_id xid8 not null default pg_current_xact_id(),
        event_id uuid not null unique default gen_random_uuid(),
        environment_id uuid not null,
        stream_type text not null,
        stream_id uuid not null,
        stream_version integer not null,
        event_type text not null,
        schema_version integer not null,
        data jsonb not null,
        metadata jsonb not null,
        occurred_at timestamptz not null default now(),
        unique (environment_id, stream_type, stream_id, stream_version)
      )`);
    await client.query(`create index bench_raw_events_transaction_order on bench_raw_events (transaction_id, global_position)`);
    await client.query(`
      create table bench_raw_outbox (
        id bigint generated always as identity primary key,
        event_position bigint not null,
        created_at timestamptz not null default now()
      )`);
  });
  try {
    const pgbench = process.env.BENCH_RAW === 'pg' ? null : which('pgbench');
    if (pgbench) return await runPgbench(pgbench, databaseUrl, statements);
    return await runRawPg(databaseUrl, statements);
  } finally {
    await withClient(databaseUrl, (client) => client.query(`drop table if exists bench_raw_events, bench_raw_outbox`)).catch(() => undefined);
  }
}

async function runPgbench(pgbench: string, databaseUrl: string, statements: readonly string[]): Promise<LoadResult> {
  const script = scratchFile('raw.sql');
  writeFileSync(script, `${statements.join('\n')}\n`);
  const version = execFileSync(pgbench, ['--version'], { encoding: 'utf8' }).trim();
  rawTool = version.replace(/^pgbench\s*/, 'pgbench ');
  const base = ['-n', '-c', String(CONNECTIONS), '-j', '2', '-f', script];
  if (WARMUP_SECONDS > 0) {
    log(`raw Postgres: pgbench warm-up ${WARMUP_SECONDS} s`);
    const warm = startChild('pgbench warm-up', pgbench, [...base, '-T', String(Math.max(1, Math.round(WARMUP_SECONDS))), databaseUrl]);
    const code = await waitExit(warm, (WARMUP_SECONDS + 60) * 1000);
    if (code !== 0) throw new Error(`pgbench warm-up exited with ${code}:\n${warm.tail.join('\n')}`);
  }
  const logs = scratchFile('pgbench-logs');
  mkdirSync(logs);
  log(`raw Postgres: pgbench ${SECONDS} s, ${CONNECTIONS} clients`);
  const bench = startChild('pgbench', pgbench, [
    ...base,
    '-T',
    String(Math.max(1, Math.round(SECONDS))),
    '-l',
    `--log-prefix=${join(logs, 'tx')}`,
    databaseUrl,
  ]);
  const code = await waitExit(bench, (SECONDS + 60) * 1000);
  if (code !== 0) throw new Error(`pgbench exited with ${code}:\n${bench.tail.join('\n')}`);
  const output = bench.tail.join('\n');
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(output)?.[1] ?? /tps = ([\d.]+)/.exec(output)?.[1]);
  const failed = Number(/number of failed transactions: (\d+)/.exec(output)?.[1] ?? 0);
  // Per-transaction log lines: client_id transaction_no time(µs | "failed") script_no time_epoch time_us ...
  const latencies: number[] = [];
  let failedLines = 0;
  for (const file of readdirSync(logs)) {
    for (const line of readFileSync(join(logs, file), 'utf8').split('\n')) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 3) continue;
      const micros = Number(fields[2]);
      if (Number.isFinite(micros)) latencies.push(micros / 1000);
      else failedLines += 1;
    }
  }
  const sorted = sortedLatencies(latencies);
  const errors = Math.max(failed, failedLines);
  return {
    seconds: SECONDS,
    count: sorted.length + failedLines,
    perSecond: Math.round(tps * 10) / 10,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
    statuses: { ok: sorted.length },
    non2xx: 0,
    unexpected: errors,
    errors,
    timeouts: 0,
    tool: rawTool,
  };
}

async function runRawPg(databaseUrl: string, statements: readonly string[]): Promise<LoadResult> {
  rawTool = `pg child process (pgbench not on PATH), ${CONNECTIONS} connections`;
  const spec: RawPgSpec = {
    url: databaseUrl,
    statements,
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    out: scratchFile('raw.json'),
  };
  const specFile = scratchFile('raw-spec.json');
  writeFileSync(specFile, JSON.stringify(spec));
  log(`raw Postgres: pgbench not used; pg child process ${WARMUP_SECONDS} s warm-up + ${SECONDS} s, ${CONNECTIONS} connections`);
  const child = startChild('raw pg', process.execPath, [join(__dirname, 'raw-pg.js'), specFile]);
  const code = await waitExit(child, (SECONDS + WARMUP_SECONDS + 60) * 1000);
  if (code !== 0) throw new Error(`raw pg child exited with ${code}:\n${child.tail.join('\n')}`);
  return JSON.parse(readFileSync(spec.out, 'utf8')) as LoadResult;
}

// ------------------------------------------------------------------ 2. bare Fastify

async function bareFastify(): Promise<LoadResult> {
  const server = startChild('bare fastify', process.execPath, [join(__dirname, 'bare-fastify.js')]);
  try {
    const { port } = await firstJsonLine<{ port: number }>(server);
    return await runLoad('bare Fastify GET', { url: `http://127.0.0.1:${port}`, method: 'GET', paths: ['/bench'], headers: {}, expectStatus: 200 });
  } finally {
    await stopChild(server);
  }
}

// ------------------------------------------------------------------ 3. the service

interface Service {
  readonly child: Child;
  readonly base: string;
}

/** The service as `npm start` runs it; test clocks only for the billing scenario (else every request would look its clock up). */
async function startService(databaseUrl: string, testClocks = false, poolSize?: number): Promise<Service> {
  const port = await freePort();
  const child = startChild('service', process.execPath, [...CPU_PROFILE_FLAGS, join(DIST, 'apps', 'api', 'src', 'main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      ROLES: 'api,worker',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      TEST_CLOCKS: String(testClocks),
      ...(poolSize ? { DATABASE_POOL_SIZE: String(poolSize) } : {}),
      JWT_SECRET,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_INSECURE_HTTP: 'true',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  let exited: number | string | null = null;
  void child.exited.then((code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`the service exited (${exited}) before it was ready:\n${child.tail.join('\n')}`);
    try {
      const response = await fetch(`${base}/health/ready`);
      if (response.status === 200) return { child, base };
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  throw new Error(`the service was not ready within 90 s:\n${child.tail.join('\n')}`);
}

interface Caller {
  readonly token: string;
}

function headers(caller: Caller, environment: string, json: boolean): Record<string, string> {
  return {
    authorization: `Bearer ${caller.token}`,
    'x-environment': environment,
    ...(json ? { 'content-type': 'application/json' } : {}),
  };
}

/** A setup call (not load): fails on any other status than `expect`. */
async function call<T>(service: Service, caller: Caller, environment: string, method: string, path: string, body: unknown, expect: number): Promise<T> {
  const response = await fetch(`${service.base}${path}`, {
    method,
    headers: headers(caller, environment, body !== undefined),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (response.status !== expect) throw new Error(`${method} ${path} answered ${response.status} (expected ${expect}): ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

const createBody = () =>
  JSON.stringify({
    customer: { id: randomUUID(), handle: 'C-1', name: 'Bench Oy' },
    currency: 'EUR',
    items: [
      { title: 'A', quantity: 2, unitAmount: 1999 },
      { title: 'B', quantity: 1, unitAmount: 500 },
    ],
  });

const updateBody = () =>
  JSON.stringify({
    date: new Date().toISOString().slice(0, 10),
    currency: 'EUR',
    items: [
      { title: 'A', quantity: 3, unitAmount: 1999 },
      { title: 'B', quantity: 1, unitAmount: 500 },
    ],
  });

async function deliveriesReceived(receiverBase: string): Promise<number> {
  const response = await fetch(`${receiverBase}/count`);
  return ((await response.json()) as { count: number }).count;
}

async function serviceScenarios(databaseUrl: string, service: Service, receiverBase: string | null): Promise<void> {
  const plain = randomUUID();
  const withWebhook = randomUUID();
  const template = randomUUID();
  const caller: Caller = {
    token: sign({ environments: [plain, withWebhook, template] }, JWT_SECRET, { algorithm: 'HS256', subject: 'bench', expiresIn: 3600 }),
  };
  const jsonHeaders = (environment: string) => headers(caller, environment, true);
  const getHeaders = (environment: string) => headers(caller, environment, false);
  /** A load of `POST /invoices` (2 lines) into `environment`. */
  const postInvoices = (name: string, environment: string, spec: Partial<Parameters<typeof runLoad>[1]> = {}) =>
    runLoad(name, {
      url: service.base,
      method: 'POST',
      paths: ['/invoices'],
      headers: jsonHeaders(environment),
      body: createBody(),
      expectStatus: 201,
      ...spec,
    });

  // a. POST /invoices
  const post = await attempt('POST /invoices', () => postInvoices('POST /invoices', plain));
  rows.push({ key: 'post', scenario: 'POST /invoices (2 lines)', result: post, ...(post ? {} : { failure: failures[failures.length - 1] }) });

  // a'. POST /invoices, each request with a fresh Idempotency-Key
  const keyed =
    ONLY === 'webhook'
      ? null
      : await attempt('POST /invoices with Idempotency-Key', () =>
          postInvoices('POST /invoices + Idempotency-Key', plain, { uniqueHeader: 'idempotency-key' }),
        );
  if (ONLY !== 'webhook')
    rows.push({
      key: 'keyed',
      scenario: 'POST /invoices (2 lines), each with a new Idempotency-Key',
      result: keyed,
      ...(keyed ? {} : { failure: failures[failures.length - 1] }),
    });

  // b. POST /invoices in an environment with one webhook subscription
  const webhook = await attempt('POST /invoices with a webhook subscription', async () => {
    if (!receiverBase) throw new Error('the webhook receiver did not start');
    await call(service, caller, withWebhook, 'PUT', '/webhooks/subscribe', { url: `${receiverBase}/hook` }, 200);
    const result = await postInvoices('POST /invoices + webhook', withWebhook);
    const receivedDuringLoad = await deliveriesReceived(receiverBase);
    const expected = await withClient(databaseUrl, async (client) =>
      Number(
        (await client.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'InvoiceCreated'`, [withWebhook])).rows[0].n,
      ),
    );
    // Let the dispatcher finish (at most 20 s), so its work does not spill into the next scenario.
    const started = Date.now();
    let received = receivedDuringLoad;
    while (received < expected && Date.now() - started < 20_000) {
      await sleep(250);
      received = await deliveriesReceived(receiverBase);
    }
    deliveries = { received, receivedDuringLoad, expected, drainSeconds: Math.round((Date.now() - started) / 100) / 10 };
    log(`webhook deliveries: ${received} of ${expected} (${receivedDuringLoad} by the end of the load)`);
    if (received < expected) failures.push(`webhook deliveries: the receiver got ${received} of ${expected} within 20 s after the load`);
    return result;
  });
  rows.push({
    key: 'webhook',
    scenario: 'POST /invoices, environment with 1 webhook subscription',
    result: webhook,
    ...(webhook ? {} : { failure: failures[failures.length - 1] }),
    ...(deliveries
      ? {
          extra: `receiver got ${deliveries.received} of ${deliveries.expected} deliveries (${deliveries.receivedDuringLoad} by the end of the load, the rest within ${deliveries.drainSeconds} s)`,
        }
      : {}),
  });

  if (ONLY === 'webhook') return;

  // Draft ids to rotate over: created ahead (by scenario a, or here when it failed).
  const ids = await attempt('draft ids for PUT and GET', async () => {
    let found = await withClient(databaseUrl, async (client) =>
      (
        await client.query<{ id: string }>(`select id from invoices where environment_id = $1 and status = 'draft' order by created_at limit $2`, [
          plain,
          ROTATION_IDS,
        ])
      ).rows.map((r) => r.id),
    );
    if (found.length < ROTATION_IDS) {
      const created = await inParallel(
        ROTATION_IDS - found.length,
        8,
        async () => (await call<{ id: string }>(service, caller, plain, 'POST', '/invoices', JSON.parse(createBody()), 201)).id,
      );
      found = [...found, ...created];
    }
    return found;
  });

  // c. PUT /invoices/{id}
  const put = ids
    ? await attempt('PUT /invoices/{id}', () =>
        runLoad('PUT /invoices/{id}', {
          url: service.base,
          method: 'PUT',
          paths: ids.map((id) => `/invoices/${id}`),
          headers: jsonHeaders(plain),
          body: updateBody(),
          expectStatus: 200,
        }),
      )
    : null;
  rows.push({
    key: 'put',
    scenario: `PUT /invoices/{id} (update a draft, ${ids?.length ?? 0} ids rotated)`,
    result: put,
    ...(put ? {} : { failure: failures[failures.length - 1] }),
  });

  // d. GET /invoices/{id}
  const getById = ids
    ? await attempt('GET /invoices/{id}', () =>
        runLoad('GET /invoices/{id}', {
          url: service.base,
          method: 'GET',
          paths: ids.map((id) => `/invoices/${id}`),
          headers: getHeaders(plain),
          expectStatus: 200,
        }),
      )
    : null;
  rows.push({
    key: 'get',
    scenario: `GET /invoices/{id} (${ids?.length ?? 0} ids rotated)`,
    result: getById,
    ...(getById ? {} : { failure: failures[failures.length - 1] }),
  });

  // e. GET /invoices?limit=20
  const list = await attempt('GET /invoices?limit=20', () =>
    runLoad('GET /invoices?limit=20', { url: service.base, method: 'GET', paths: ['/invoices?limit=20'], headers: getHeaders(plain), expectStatus: 200 }),
  );
  rows.push({ key: 'list', scenario: 'GET /invoices?limit=20', result: list, ...(list ? {} : { failure: failures[failures.length - 1] }) });

  // POST /invoices at half the maximum rate
  const rate = post ? Math.max(1, Math.round(post.perSecond / 2)) : 0;
  const half = post ? await attempt('POST /invoices at half the max rate', () => postInvoices('POST /invoices at 50 %', plain, { overallRate: rate })) : null;
  rows.push({
    key: 'half',
    scenario: `POST /invoices at 50 % of the max, autocannon overallRate (${rate} requests/s offered)`,
    result: half,
    ...(half ? {} : { failure: post ? failures[failures.length - 1] : 'not run: scenario a failed' }),
  });

  // The same rate, evenly paced (autocannon's rate limit sends each second's quota in a burst).
  const paced = post
    ? await attempt('POST /invoices at half the max rate, evenly paced', () =>
        // Warm already: the run before was the same request at the same rate.
        postInvoices('POST /invoices at 50 %, paced', plain, { overallRate: rate, pacing: 'paced', warmupSeconds: 0 }),
      )
    : null;
  rows.push({
    key: 'paced',
    scenario: `POST /invoices at 50 % of the max, evenly paced (${rate} requests/s offered)`,
    result: paced,
    ...(paced ? {} : { failure: post ? failures[failures.length - 1] : 'not run: scenario a failed' }),
  });

  await rebuildTemplate(service, caller, template);
}

/** Events for the rebuild: invoices made through the API, each updated once. */
async function rebuildTemplate(service: Service, caller: Caller, template: string): Promise<void> {
  await attempt('rebuild template invoices', async () => {
    log(`rebuild: creating ${TEMPLATE_INVOICES} invoices (each updated once) through the API`);
    const created = await inParallel(
      TEMPLATE_INVOICES,
      8,
      async () => (await call<{ id: string }>(service, caller, template, 'POST', '/invoices', JSON.parse(createBody()), 201)).id,
    );
    await inParallel(created.length, 8, async (i) => call(service, caller, template, 'PUT', `/invoices/${created[i]}`, JSON.parse(updateBody()), 200));
    templateEnvironment = template;
    templateIds = created;
  });
}

let templateEnvironment = '';
let templateIds: string[] = [];

async function inParallel<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await task(index);
      }
    }),
  );
  return results;
}

// ------------------------------------------------------------------ 4. rebuild

/**
 * Replicates the template invoices' streams under fresh stream ids until the
 * log holds REBUILD_EVENTS events. The new stream id is a function of
 * (template stream, copy), so every event of a stream gets the same one, and
 * every occurrence of the old id inside the event data (the invoice id) is
 * rewritten to it.
 */
async function replicateEvents(databaseUrl: string): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const count = async (sql: string, params: unknown[] = []) => Number((await client.query(sql, params)).rows[0].n);
    const existing = await count(`select count(*)::bigint as n from events`);
    const perCopy = await count(
      `select count(*)::bigint as n from events where environment_id = $1 and stream_type = 'invoice' and stream_id = any($2::uuid[])`,
      [templateEnvironment, templateIds],
    );
    if (perCopy === 0) throw new Error('no template events to replicate');
    const copies = Math.max(0, Math.ceil((REBUILD_EVENTS - existing) / perCopy));
    log(`rebuild: ${existing} events in the log; replicating ${templateIds.length} invoices (${perCopy} events) ${copies} times`);
    const chunk = 40;
    for (let first = 1; first <= copies; first += chunk) {
      const last = Math.min(copies, first + chunk - 1);
      const params = [templateEnvironment, templateIds, first, last];
      await client.query('begin');
      await client.query(
        `insert into streams (environment_id, stream_type, stream_id, version)
         select s.environment_id, s.stream_type, md5(s.stream_id::text || ':' || g)::uuid, s.version
           from streams s cross join generate_series($3::int, $4::int) g
          where s.environment_id = $1 and s.stream_type = 'invoice' and s.stream_id = any($2::uuid[])`,
        params,
      );
      await client.query(
        `insert into events (event_id, environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at)
         select gen_random_uuid(), e.environment_id, e.stream_type, c.stream_id, e.stream_version, e.event_type, e.schema_version,
                replace(e.data::text, e.stream_id::text, c.stream_id::text)::jsonb, e.metadata, e.occurred_at
           from events e
           cross join generate_series($3::int, $4::int) g
           cross join lateral (select md5(e.stream_id::text || ':' || g)::uuid as stream_id) c
          where e.environment_id = $1 and e.stream_type = 'invoice' and e.stream_id = any($2::uuid[])
          order by g, e.global_position`,
        params,
      );
      await client.query('commit');
    }
    // What autovacuum would have done on a log this size.
    await client.query(`vacuum (analyze) events`);
    await client.query(`vacuum (analyze) streams`);
    return count(`select count(*)::bigint as n from events`);
  });
}

async function runRebuild(databaseUrl: string, events: number): Promise<Rebuild> {
  const projections: Array<{ name: string; ms: number }> = [];
  const checkpointsBefore = await withClient(
    databaseUrl,
    async (client) =>
      new Map(
        (await client.query<{ name: string; position: string }>(`select name, global_position::text as position from projection_checkpoints`)).rows.map((r) => [
          r.name,
          r.position,
        ]),
      ),
  );
  log(`rebuild: node dist/apps/api/src/rebuild.js over ${events} events (time limit ${REBUILD_TIMEOUT_SECONDS} s)`);
  const started = process.hrtime.bigint();
  const child = startChild('rebuild', process.execPath, [join(DIST, 'apps', 'api', 'src', 'rebuild.js')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', NODE_ENV: 'development', JWT_SECRET },
    onLine: (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; projection?: string; ms?: number };
        if (entry.msg === 'rebuilt' && entry.projection) projections.push({ name: entry.projection, ms: Number(entry.ms) });
      } catch {
        /* not a log line */
      }
    },
  });
  let code: number | string;
  let timedOut = false;
  try {
    code = await waitExit(child, REBUILD_TIMEOUT_SECONDS * 1000);
  } catch {
    timedOut = true;
    code = 'killed';
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const check = await withClient(databaseUrl, async (client) => {
    const one = async (sql: string) => Number((await client.query(sql)).rows[0].n);
    return {
      invoices: await one(`select count(*)::bigint as n from invoices`),
      streams: await one(`select count(*)::bigint as n from streams where stream_type = 'invoice'`),
      checkpoints: (
        await client.query<{ name: string; position: string }>(`select name, global_position::text as position from projection_checkpoints order by name`)
      ).rows,
      last: await one(`select coalesce(max(global_position), 0)::bigint as n from events`),
      // Projections follow only their own streams: the invoicing read model must stand at the last invoice or tax-code event.
      lastInvoicing: await one(`select coalesce(max(global_position), 0)::bigint as n from events where stream_type in ('invoice', 'tax-code')`),
    };
  });
  const base = { events, projections, invoicesRebuilt: check.invoices, invoiceStreams: check.streams };
  if (timedOut) {
    // A full rebuild takes longer than the limit, so events ÷ limit is an upper bound; the progress says how far it got.
    const finished = new Set(projections.map((p) => p.name));
    // The one being replayed was reset and has moved since; the ones not started yet still have their old checkpoint.
    const inProgress = check.checkpoints.filter((c) => !finished.has(c.name) && checkpointsBefore.get(c.name) !== c.position);
    let progress = 0;
    for (const c of inProgress) {
      progress += await withClient(databaseUrl, async (client) =>
        Number((await client.query(`select count(*)::bigint as n from events where global_position <= $1`, [c.position])).rows[0].n),
      );
    }
    const total = check.checkpoints.length;
    // Time spent on the projection in progress: the wall time less the finished ones (start-up counted in, so a low estimate).
    const inProgressSeconds = seconds - projections.reduce((sum, p) => sum + p.ms, 0) / 1000;
    const note =
      `did not finish within ${REBUILD_TIMEOUT_SECONDS} s (killed): ${finished.size} of ${total} projections rebuilt` +
      `${inProgress.length ? `, ${inProgress.map((c) => c.name).join(', ')} at ${progress} of ${events} events (≈ ${Math.round(progress / inProgressSeconds)} events/s for it alone)` : ''}`;
    failures.push(`rebuild ${note}`);
    return { ...base, seconds, perSecond: Math.floor(events / seconds), complete: false, upperBound: true, note };
  }
  if (code !== 0) throw new Error(`rebuild exited with ${code}:\n${child.tail.join('\n')}`);
  const behind = check.checkpoints.filter((c) => c.name === 'invoicing.read-model' && Number(c.position) !== check.lastInvoicing);
  if (check.invoices !== check.streams || behind.length > 0) {
    failures.push(
      `rebuild finished but the read model is wrong: ${check.invoices} invoices for ${check.streams} invoice streams; invoicing checkpoint behind position ${check.lastInvoicing}: ${behind.map((c) => `${c.name}=${c.position}`).join(', ') || 'none'}`,
    );
  }
  return { ...base, seconds, perSecond: Math.round(events / seconds), complete: check.invoices === check.streams && behind.length === 0 };
}

// ------------------------------------------------------------------ report

function machine(serverVersion: string): string {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? model;
  } catch {
    /* not Linux */
  }
  const memory = `${Math.round((totalmem() / 1024 ** 3) * 10) / 10} GiB`;
  return `${model}, ${cpus().length} cores, ${memory} memory; Node ${process.version}; PostgreSQL ${serverVersion}`;
}

function commit(): string {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return `${hash}${dirty ? '-dirty' : ''}`;
  } catch {
    return 'unknown';
  }
}

const fmt = (value: number | undefined | null, digits = 1) => (value === undefined || value === null || !Number.isFinite(value) ? '–' : value.toFixed(digits));
const ratio = (a: LoadResult | null | undefined, b: LoadResult | null | undefined) => (a && b && b.perSecond > 0 ? a.perSecond / b.perSecond : null);

function report(serverVersion: string, databaseNote: string): string {
  const byKey = (key: string) => rows.find((r) => r.key === key)?.result ?? null;
  const raw = byKey('raw');
  const bare = byKey('bare');
  const post = byKey('post');
  const put = byKey('put');
  const get = byKey('get');
  const webhook = byKey('webhook');
  const half = byKey('half');
  const keyed = byKey('keyed');
  const pacedRun = byKey('paced');
  const lines: string[] = [];
  lines.push(`## ${REPORT_HEADING}`);
  lines.push('');
  lines.push(`- date: ${new Date().toISOString()}`);
  lines.push(`- commit: ${commit()}`);
  lines.push(`- machine: ${machine(serverVersion)}`);
  lines.push(
    `- load average (1 min) at the start ${loadStart.toFixed(2)}, at the end ${loadavg()[0].toFixed(2)} (other work on the machine skews the figures)`,
  );
  lines.push(`- database: ${databaseNote}`);
  lines.push(
    `- load: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${SECONDS} s per scenario; HTTP load from autocannon in a child process; raw Postgres from ${rawTool || 'n/a'}`,
  );
  lines.push('');
  const problems = rows.filter((r) => r.result && (r.result.non2xx > 0 || r.result.unexpected > 0 || r.result.errors > 0 || r.result.timeouts > 0));
  if (failures.length > 0 || problems.length > 0) {
    lines.push('> **WARNING: this run had errors; the figures below are not clean.**');
    for (const r of problems) {
      lines.push(
        `> - ${r.scenario}: ${r.result!.non2xx} non-2xx, ${r.result!.unexpected} unexpected status, ${r.result!.errors} errors, ${r.result!.timeouts} timeouts (statuses ${JSON.stringify(r.result!.statuses)})`,
      );
    }
    for (const failure of failures) lines.push(`> - ${failure.split('\n')[0]}`);
    lines.push('');
  }
  lines.push('| scenario | requests/s | p50 ms | p99 ms | non-2xx | errors + timeouts |');
  lines.push('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    if (!r.result) {
      lines.push(`| ${r.scenario} | FAILED | | | | ${(r.failure ?? '').split('\n')[0].replace(/\|/g, '/')} |`);
      continue;
    }
    lines.push(
      `| ${r.scenario} | ${fmt(r.result.perSecond)} | ${fmt(r.result.p50, 2)} | ${fmt(r.result.p99, 2)} | ${r.result.non2xx} | ${r.result.errors + r.result.timeouts} |`,
    );
  }
  const usage = byKey('usage');
  if (usage) {
    lines.push(
      `| usage ingestion: events accepted per second in batches of ${USAGE_BATCH} (the row above × ${USAGE_BATCH}) | ${fmt(usage.perSecond * USAGE_BATCH, 0)} events/s | | | | |`,
    );
  }
  for (const { aggregation, events, medianMs } of aggregations) {
    lines.push(
      `| usage aggregation: GET /subscriptions/{id}/usage over a period of ${events} events, \`${aggregation}\` (median of 3) | | ${fmt(medianMs, 0)} ms | | | |`,
    );
  }
  for (const run of billing) {
    lines.push(
      `| billing engine: ${run.subscriptions} due subscriptions, one invoice each created and booked (one \`POST /test-clock/advance\`, ${run.processes === 1 ? 'one process' : `${run.processes} processes`}); p50/p99: a concurrent \`GET /invoices/{id}\` reader (${run.reads} reads); per invoice ${fmt(run.cost.serviceCpuMs, 2)} ms service CPU, ${fmt(run.cost.postgresCpuMs, 2)} ms Postgres CPU, ${fmt(run.cost.commits, 2)} commits | ${fmt(run.invoices / run.seconds, 0)} invoices/s | ${fmt(run.read.p50, 2)} | ${fmt(run.read.p99, 2)} | | ${fmt(run.seconds, 1)} s |`,
    );
    const { atAnswer, drainSeconds } = run.documents;
    const total = drainSeconds === null ? null : run.seconds + drainSeconds;
    lines.push(
      `| invoice documents of that run (rendered beside booking, one render thread per process): ${atAnswer} of ${run.invoices} rendered when the advance answered, the backlog drained ${drainSeconds === null ? 'not within 600 s' : `${fmt(drainSeconds, 1)} s later`}; per invoice from the advance until then ${fmt(run.documents.serviceCpuMs, 2)} ms service CPU, ${fmt(run.documents.postgresCpuMs, 2)} ms Postgres CPU, ${fmt(run.documents.commits, 2)} commits | ${total === null ? '–' : `${fmt(run.invoices / total, 0)} documents/s`} | | | | ${total === null ? '–' : `${fmt(total, 1)} s`} |`,
    );
  }
  if (rebuild) {
    lines.push(
      `| rebuild of every projection (\`node dist/apps/api/src/rebuild.js\`), ${rebuild.events} events | ${rebuild.upperBound ? '< ' : rebuild.complete ? '' : 'INCOMPLETE '}${fmt(rebuild.perSecond, 0)} events/s | | | | ${fmt(rebuild.seconds, 1)} s |`,
    );
  }
  lines.push('');
  const rebuildRate = rebuild && (rebuild.complete || rebuild.upperBound) ? rebuild.perSecond : null;
  const measures: Array<{ name: string; value: number | null; shown?: string; target: string; met: (v: number) => boolean | null; digits: number }> = [
    { name: 'POST /invoices ÷ raw Postgres tps', value: ratio(post, raw), target: '≥ 0.35', met: (v) => v >= 0.35, digits: 2 },
    { name: 'PUT /invoices/{id} ÷ raw Postgres tps', value: ratio(put, raw), target: '≥ 0.35', met: (v) => v >= 0.35, digits: 2 },
    { name: 'GET /invoices/{id} ÷ bare Fastify', value: ratio(get, bare), target: '≥ 0.25', met: (v) => v >= 0.25, digits: 2 },
    { name: 'POST with Idempotency-Key ÷ POST without', value: ratio(keyed, post), target: '≥ 0.90', met: (v) => v >= 0.9, digits: 2 },
    { name: 'POST with a webhook subscription ÷ POST without', value: ratio(webhook, post), target: '≥ 0.90', met: (v) => v >= 0.9, digits: 2 },
    {
      name: 'POST /invoices p99 at 50 % of the max rate, autocannon overallRate (ms)',
      value: half ? half.p99 : null,
      target: '≤ 25 ms',
      met: (v) => v <= 25,
      digits: 2,
    },
    {
      name: 'POST /invoices p99 at 50 % of the max rate, evenly paced (ms)',
      value: pacedRun ? pacedRun.p99 : null,
      target: '≤ 25 ms',
      met: (v) => v <= 25,
      digits: 2,
    },
    {
      name: 'rebuild events/s',
      value: rebuildRate,
      ...(rebuild?.upperBound && rebuildRate !== null ? { shown: `< ${rebuildRate}` } : {}),
      target: '≥ 50 000',
      // An upper bound below the target is a clear no; above it says nothing.
      met: (v) => (rebuild?.upperBound ? (v < 50_000 ? false : null) : v >= 50_000),
      digits: 0,
    },
  ];
  lines.push('| measure | value | target | met |');
  lines.push('|---|---:|---|---|');
  for (const m of measures) {
    const met = m.value === null ? 'not measured' : m.met(m.value) === null ? 'unknown' : m.met(m.value) ? 'yes' : '**no**';
    lines.push(`| ${m.name} | ${m.value === null ? '–' : (m.shown ?? fmt(m.value, m.digits))} | ${m.target} | ${met} |`);
  }
  lines.push('');
  const notes: string[] = [];
  if (raw) {
    notes.push(
      `raw Postgres: ${rawTool}; per transaction BEGIN, one ${eventBytes}-byte jsonb event row into a copy of the events table (same keys and indexes), one outbox row, COMMIT (4 round trips, simple protocol); ` +
        (raw.tool.startsWith('pgbench')
          ? `tps is pgbench's (without connection time), latencies from its per-transaction log (-l).`
          : `transactions per second and latencies measured by the child process.`),
    );
  }
  const bareRow = rows.find((r) => r.key === 'bare');
  if (bareRow?.result) notes.push(`bare Fastify: one GET route answering a fixed ~1 KB JSON object, no auth, no database.`);
  if (deliveries) notes.push(`webhooks: ${(rows.find((r) => r.key === 'webhook')?.extra ?? '').trim()}.`);
  if (half) {
    notes.push(
      `50 % runs: ${half.notes?.overallRate} requests/s offered (half of scenario a). With autocannon's overallRate every connection sends its quota for the second back to back at the start of the second, so the load arrives in bursts of up to ${CONNECTIONS} concurrent requests; ` +
        `${fmt(half.perSecond)} answered per second, autocannon's own coordinated-omission-corrected p99 ${half.notes?.autocannonP99} ms (1 ms resolution). ` +
        `The evenly paced run sends one request every ${fmt(1000 / Number(half.notes?.overallRate ?? 1), 1)} ms from a node:http child process (open loop, at most ${CONNECTIONS} in flight) and counts latency from the moment each request was due${pacedRun ? `; ${fmt(pacedRun.perSecond)} answered per second` : ''}.`,
    );
  }
  if (rebuild) {
    notes.push(
      `rebuild: ${rebuild.events} events (a few hundred invoices made through the API, each updated once, replicated with SQL under fresh stream ids); ${fmt(rebuild.seconds, 1)} s wall time for the whole process (start-up included)` +
        `${rebuild.projections.length ? `; per projection: ${rebuild.projections.map((p) => `${p.name} ${(p.ms / 1000).toFixed(1)} s`).join(', ')}` : ''}` +
        `; afterwards ${rebuild.invoicesRebuilt} invoice rows for ${rebuild.invoiceStreams} invoice streams${rebuild.note ? `; ${rebuild.note}` : ''}.`,
    );
  }
  notes.push(
    'Latencies are client-side (autocannon per-response times, fractional ms) over every answer. Load generator, server and Postgres share the same cores.',
  );
  for (const note of notes) lines.push(`- ${note}`);
  return lines.join('\n');
}

function writeReport(section: string): void {
  if (REPORT_FILE === '-') return;
  const intro = [
    '# Benchmarks',
    '',
    '`npm run bench` (build, then `node dist/test/bench/run.js`) measures in one run, with the load coming from separate processes',
    '(autocannon in a child process for HTTP, pgbench for raw Postgres), 16 connections, a short warm-up and then 10 s per scenario:',
    '',
    '1. raw Postgres doing the same durable write as an invoice command: one ~600 B jsonb event row (into a copy of the events table with the same keys and indexes) and one outbox row per transaction (pgbench `-n -c 16 -j 2 -T 10`, latencies from its `-l` log; a pg child process when pgbench is not on PATH);',
    '2. a bare Fastify route answering ~1 KB of JSON (the ceiling for HTTP + JSON in Node here);',
    "3. the service as its own process (`node dist/apps/api/src/main.js`, api and worker roles, `LOG_LEVEL=warn`): `POST /invoices` with 2 lines, the same in an environment with one webhook subscription to a local receiver (a child process answering 200), `PUT /invoices/{id}` over 300 drafts, `GET /invoices/{id}` over the same ids, `GET /invoices?limit=20`, and `POST /invoices` again at half the measured maximum rate, once with autocannon's `overallRate` and once evenly paced;",
    '4. the billing engine: 10 000 monthly subscriptions made through the API (a second service process, with `TEST_CLOCKS=true`; the first runs with test clocks off, as in production), then one `POST /test-clock/advance` to their start, timed to its answer (it answers once every due invoice is created and booked), checked against the event store; then again on fresh subscriptions with `BENCH_BILLING_PROCESSES` (3) service processes on the one database (the advance goes to one, the worker loops of the others see the clock move and share the work); during each advance one client reads `GET /invoices/{id}` in a loop (its p50/p99 in the row); after it answers, the bench waits until every invoice has its document (`InvoiceDocumentRendered`): the render backlog at the answer, its drain time and documents/s over the advance and the drain;',
    '5. `node dist/apps/api/src/rebuild.js` (every projection) over at least 200 000 events: 300 invoices made through the API and updated once, their events replicated with SQL under fresh stream ids; the read model is checked afterwards. A rebuild that does not finish within the time limit is killed and reported as an upper bound with its progress.',
    "6. usage ingestion: `POST /usage-events` with batches of 1 000 new events; usage aggregation: per aggregation, a subscription whose current period holds 1 000 000 events (written with one `generate_series` insert), then `GET /subscriptions/{id}/usage` (the usage store's one SQL statement, the same the billing engine and the preview run) once to warm up and 3 times timed: the median is in the p50 column.",
    '',
    'Every scenario counts non-2xx answers, socket errors and timeouts; a run with any of them, or with a failed step, says so in a warning above its table and exits with status 1.',
    '',
    'Settings: `BENCH_SECONDS` (10), `BENCH_WARMUP_SECONDS` (2), `BENCH_CONNECTIONS` (16), `BENCH_REBUILD_EVENTS` (200000), `BENCH_REBUILD_TIMEOUT_SECONDS` (100), `BENCH_BILLING_SUBSCRIPTIONS` (10000),',
    '`BENCH_BILLING_PROCESSES` (3), `BENCH_RAW=pg` (the pg child instead of pgbench), `BENCH_REPORT` (the file to write, `-` for none), `BENCH_REPORT_HEADING`, `BENCH_KEEP_DATABASE=1`,',
    '`BENCH_CPU_PROFILE_DIR` (every service process writes a V8 CPU profile there; summarise with `node dist/test/bench/profile-summary.js`),',
    '`BENCH_ONLY=usage` (the usage scenarios alone), `BENCH_ONLY=http` (the raw anchors and the HTTP scenarios alone), `BENCH_ONLY=billing` (the billing engine alone), `BENCH_ONLY=rebuild` (the rebuild alone, over a log of the replicated template invoices only), `BENCH_ONLY=webhook` (`POST /invoices` without and with a webhook subscription alone).',
    'With `DATABASE_URL` set the bench creates its own database on that server and drops it afterwards; else it starts an embedded Postgres in a temporary folder.',
    'The commit is `git rev-parse --short HEAD`, with `-dirty` when `git status --porcelain` lists anything (other work in progress included).',
    '',
  ].join('\n');
  let kept = `${KEEP_MARKER}\n`;
  if (existsSync(REPORT_FILE)) {
    const current = readFileSync(REPORT_FILE, 'utf8');
    const at = current.indexOf(KEEP_MARKER);
    if (at >= 0) kept = current.slice(at);
  }
  mkdirSync(dirname(REPORT_FILE), { recursive: true });
  writeFileSync(REPORT_FILE, `${intro}\n${section}\n\n${kept}`);
  log(`report written to ${REPORT_FILE}`);
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const startedAt = Date.now();
  scratch = mkdtempSync(join(tmpdir(), 'billing-bench-'));
  // mkdtemp folders are mode 700: as root, the embedded Postgres's own account must be able to enter it.
  chmodSync(scratch, 0o755);
  let adminUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | null = null;
  let databaseNote = 'DATABASE_URL (an existing server)';
  const database = `billing_bench_${Date.now()}`;
  let databaseUrl = '';
  let serverVersion = 'unknown';
  let receiver: Child | null = null;
  let service: Service | null = null;
  let cleaning: Promise<void> | null = null;
  // Also run by SIGINT/SIGTERM: children stopped, bench database dropped, embedded server stopped.
  const cleanup = () =>
    (cleaning ??= (async () => {
      await stopAllChildren();
      if (process.env.BENCH_KEEP_DATABASE === '1') {
        log(`BENCH_KEEP_DATABASE=1: keeping ${databaseUrl}`);
      } else if (adminUrl && databaseUrl) {
        await withClient(adminUrl, (client) => client.query(`drop database if exists "${database}" with (force)`)).catch((error) =>
          log(`could not drop ${database}: ${error}`),
        );
      }
      if (stopEmbedded) await stopEmbedded().catch(() => undefined);
      rmSync(scratch, { recursive: true, force: true });
    })());
  cleanupOnSignal = cleanup;
  /** The billing engine scenario on one service process started with test clocks for it, then on BILLING_PROCESSES of them. */
  async function billingEngine(): Promise<void> {
    for (const processes of new Set([1, BILLING_PROCESSES])) {
      log(`starting ${processes} service process(es) with test clocks for the billing engine`);
      // Several processes share the server's connections (max_connections, 100 by default).
      const poolSize = processes > 1 ? BILLING_POOL_SIZE : undefined;
      service = await startService(databaseUrl, true, poolSize);
      const others: Service[] = [];
      for (let more = 1; more < processes; more++) others.push(await startService(databaseUrl, true, poolSize));
      const billed = await attempt(`billing engine, ${processes} process(es)`, () => billingScenario(databaseUrl, service!, others));
      if (billed) billing.push(billed);
      for (const other of others) await stopChild(other.child, 20_000);
      await stopChild(service.child, 20_000);
      service = null;
    }
  }
  /** Every scenario but BENCH_ONLY's shortcut, in order. */
  async function allScenarios(): Promise<void> {
    if (ONLY === 'webhook') {
      log('BENCH_ONLY=webhook: POST /invoices without and with a webhook subscription only');
    } else {
      const raw = await attempt('raw Postgres baseline', () => rawPostgres(databaseUrl));
      rows.push({
        key: 'raw',
        scenario: 'raw Postgres: BEGIN; event row (jsonb); outbox row; COMMIT',
        result: raw,
        ...(raw ? {} : { failure: failures[failures.length - 1] }),
      });
      const bare = await attempt('bare Fastify', () => bareFastify());
      rows.push({ key: 'bare', scenario: 'bare Fastify: GET, ~1 KB JSON', result: bare, ...(bare ? {} : { failure: failures[failures.length - 1] }) });
    }

    receiver = startChild('webhook receiver', process.execPath, [join(__dirname, 'webhook-receiver.js')]);
    const receiverPort = await attempt('webhook receiver', async () => (await firstJsonLine<{ port: number }>(receiver!)).port);
    log('starting the service');
    service = await startService(databaseUrl);
    await serviceScenarios(databaseUrl, service, receiverPort ? `http://127.0.0.1:${receiverPort}` : null);
    if (ONLY !== 'http' && ONLY !== 'webhook') {
      await usageScenario(databaseUrl, service);
      await usageAggregationScenario(databaseUrl, service);
    }
    log('stopping the service');
    await stopChild(service.child, 20_000);
    service = null;
    await stopChild(receiver);
    if (ONLY === 'http' || ONLY === 'webhook') return;

    await billingEngine();

    if (templateEnvironment) {
      const rebuilt = await attempt('rebuild', async () => runRebuild(databaseUrl, await replicateEvents(databaseUrl)));
      if (rebuilt) rebuild = rebuilt;
    }
  }
  try {
    if (!adminUrl) {
      log('DATABASE_URL is not set: starting an embedded Postgres');
      const embedded = await startEmbeddedPostgres({ dataDir: join(scratch, 'postgres'), database: 'postgres' });
      adminUrl = embedded.url;
      stopEmbedded = embedded.stop;
      databaseNote = 'embedded Postgres (started by the bench)';
    }
    await ensureDatabase(adminUrl, database);
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    serverVersion = await withClient(
      databaseUrl,
      async (client) => (await client.query<{ server_version: string }>('show server_version')).rows[0].server_version,
    );

    if (ONLY === 'billing') {
      log('BENCH_ONLY=billing: the billing engine scenario only');
      await billingEngine();
    } else if (ONLY === 'usage') {
      log('BENCH_ONLY=usage: the usage ingestion and aggregation scenarios only');
      service = await startService(databaseUrl);
      await usageScenario(databaseUrl, service);
      await usageAggregationScenario(databaseUrl, service);
      await stopChild(service.child, 20_000);
      service = null;
    } else if (ONLY === 'rebuild') {
      log('BENCH_ONLY=rebuild: the rebuild scenario only');
      service = await startService(databaseUrl);
      const template = randomUUID();
      const caller = { token: sign({ environments: [template] }, JWT_SECRET, { algorithm: 'HS256', subject: 'bench', expiresIn: 3600 }) };
      await rebuildTemplate(service, caller, template);
      await stopChild(service.child, 20_000);
      service = null;
      if (templateEnvironment) {
        const rebuilt = await attempt('rebuild', async () => runRebuild(databaseUrl, await replicateEvents(databaseUrl)));
        if (rebuilt) rebuild = rebuilt;
      }
    } else {
      await allScenarios();
    }
  } catch (error) {
    failures.push(`run aborted: ${String((error as Error)?.message ?? error)}`);
    log(`FAILED ${String((error as Error)?.stack ?? error)}`);
  } finally {
    await cleanup();
  }
  const section = report(serverVersion, databaseNote);
  process.stdout.write(`\n${section}\n\n`);
  writeReport(section);
  log(`done in ${Math.round((Date.now() - startedAt) / 1000)} s`);
  if (failures.length > 0) {
    process.stderr.write(`\n!!! ${failures.length} failure(s):\n${failures.map((f) => `  - ${f.split('\n')[0]}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}

interface BillingRun {
  readonly processes: number;
  readonly subscriptions: number;
  readonly invoices: number;
  readonly seconds: number;
  /** GET /invoices/{id} latencies (ms) of one reader looping during the advance. */
  readonly read: { p50: number; p99: number };
  readonly reads: number;
  /** Per invoice, during the advance: CPU of the service processes and of the bench database's Postgres backends (ms), and commits. */
  readonly cost: { serviceCpuMs: number; postgresCpuMs: number; commits: number };
  /**
   * Invoice documents rendered when the advance answered, and how long after it the last one was (null: not within
   * 600 s); per invoice, the CPU and commits from the advance until then.
   */
  readonly documents: { atAnswer: number; drainSeconds: number | null; serviceCpuMs: number; postgresCpuMs: number; commits: number };
}

/** The invoice documents' backlog after an advance: rendered when it answered, then the time until every invoice has its document. */
async function renderBacklog(databaseUrl: string, environment: string, invoices: number): Promise<{ atAnswer: number; drainSeconds: number | null }> {
  const rendered = () =>
    withClient(databaseUrl, async (client) =>
      Number(
        (await client.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'InvoiceDocumentRendered'`, [environment]))
          .rows[0].n,
      ),
    );
  const atAnswer = await rendered();
  const started = Date.now();
  for (let now = atAnswer; now < invoices; now = await rendered()) {
    if (Date.now() - started > 600_000) return { atAnswer, drainSeconds: null };
    await sleep(250);
  }
  return { atAnswer, drainSeconds: (Date.now() - started) / 1000 };
}

/**
 * What the advance costs, read before and after it: CPU seconds of the service processes and of the bench
 * database's backends, its commits. Backends come and go (the pools close idle connections), and a backend that
 * ended takes its CPU seconds with it, so they are sampled every 200 ms while the advance runs: each backend counts
 * from its value when first seen (0 for one that began after the start) to its last value seen. The sampler's own
 * connection stays open and is left out.
 */
class BillingCost {
  private readonly backends = new Map<number, { first: number; last: number }>();
  private readonly timer: NodeJS.Timeout;
  private sampling: Promise<unknown> = Promise.resolve();
  private started = false;

  private constructor(
    private readonly client: Client,
    private readonly services: readonly Service[],
  ) {
    this.timer = setInterval(() => void (this.sampling = this.sampling.then(() => this.sample()).catch(() => undefined)), 200);
  }

  static async start(databaseUrl: string, services: readonly Service[]): Promise<BillingCost> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const cost = new BillingCost(client, services);
    await cost.sample();
    cost.started = true;
    return cost;
  }

  /** The figures so far: service and Postgres CPU seconds since the start (cumulative for the services), commits. */
  async read(): Promise<{ service: number; postgres: number; commits: number }> {
    await this.sampling;
    const commits = await this.sample();
    let postgres = 0;
    for (const { first, last } of this.backends.values()) postgres += last - first;
    return { service: cpuSeconds(this.services.map((one) => one.child.process.pid!)), postgres, commits };
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sampling;
    await this.client.end();
  }

  private async sample(): Promise<number> {
    const pids = (
      await this.client.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`)
    ).rows.map((row) => row.pid);
    // Read after the backends' list, so the commits counted include those of the backends sampled.
    const commits = Number((await this.client.query(`select xact_commit::text as n from pg_stat_database where datname = current_database()`)).rows[0].n);
    for (const pid of pids) {
      const seconds = cpuSeconds([pid]);
      const known = this.backends.get(pid);
      if (known) known.last = Math.max(known.last, seconds);
      else this.backends.set(pid, { first: this.started ? 0 : seconds, last: seconds });
    }
    return commits;
  }
}

/** User + system CPU seconds of the processes (Linux /proc; 0 for one that is gone). */
function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* ended */
    }
  }
  return ticks / 100;
}

/**
 * BILLING_SUBSCRIPTIONS monthly subscriptions (one fee item each) starting
 * in two days, made through the API 16 at a time; then one POST
 * /test-clock/advance to their start, which answers once the engine (of this
 * process and, with `processes` > 1, the worker loops of the others, which
 * see the clock moved) has created and booked one invoice per subscription.
 * Timed from the request to the answer, and checked against the event store;
 * meanwhile one reader GETs an invoice of the environment in a loop.
 */
async function billingScenario(databaseUrl: string, service: Service, others: readonly Service[]): Promise<BillingRun> {
  const processes = 1 + others.length;
  const environment = randomUUID();
  const caller: Caller = { token: sign({ environments: [environment] }, JWT_SECRET, { algorithm: 'HS256', subject: 'bench', expiresIn: 3600 }) };
  const product = await call<{ id: string }>(service, caller, environment, 'POST', '/products', { name: 'Plan' }, 201);
  const price = await call<{ id: string }>(
    service,
    caller,
    environment,
    'POST',
    '/prices',
    {
      name: 'Monthly',
      priceModel: 'fee',
      pricing: { eur: { unitAmount: 1000 } },
      purchase: 'recurring',
      termCount: 1,
      termUnit: 'month',
      billingTiming: 'advance',
      productId: product.id,
    },
    201,
  );
  const start = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  log(`billing: creating ${BILLING_SUBSCRIPTIONS} subscriptions starting ${start}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < BILLING_SUBSCRIPTIONS) {
        const index = next++;
        const body = {
          customer: { id: randomUUID(), handle: `C-${index}`, name: `Customer ${index}` },
          currency: 'EUR',
          term: { start, end: null },
          items: [{ priceId: price.id }],
        };
        await call(service, caller, environment, 'POST', '/subscriptions', body, 201);
      }
    }),
  );
  const read = await call<{ id: string }>(service, caller, environment, 'POST', '/invoices', JSON.parse(createBody()), 201);
  log(`billing: POST /test-clock/advance to ${start}T00:00:00Z (${processes} process(es))`);
  const meter = await BillingCost.start(databaseUrl, [service, ...others]);
  try {
    const before = await meter.read();
    const started = process.hrtime.bigint();
    let advancing = true;
    const latencies: number[] = [];
    const reader = (async () => {
      while (advancing) {
        const sent = process.hrtime.bigint();
        await call(service, caller, environment, 'GET', `/invoices/${read.id}`, undefined, 200);
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
      }
    })();
    await call(service, caller, environment, 'POST', '/test-clock/advance', { to: `${start}T00:00:00Z` }, 200).finally(() => (advancing = false));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await reader;
    const after = await meter.read();
    const sorted = sortedLatencies(latencies);
    const invoices = await withClient(databaseUrl, async (client) =>
      Number((await client.query(`select count(*)::int as n from events where environment_id = $1 and event_type = 'InvoiceBooked'`, [environment])).rows[0].n),
    );
    if (invoices !== BILLING_SUBSCRIPTIONS) throw new Error(`billing: ${invoices} invoices booked for ${BILLING_SUBSCRIPTIONS} due subscriptions`);
    log(`billing: ${invoices} invoices in ${seconds.toFixed(1)} s (${processes} process(es))`);
    const cost = {
      serviceCpuMs: ((after.service - before.service) * 1000) / invoices,
      postgresCpuMs: ((after.postgres - before.postgres) * 1000) / invoices,
      commits: (after.commits - before.commits) / invoices,
    };
    log(
      `billing: per invoice ${cost.serviceCpuMs.toFixed(2)} ms service CPU, ${cost.postgresCpuMs.toFixed(2)} ms Postgres CPU, ${cost.commits.toFixed(2)} commits`,
    );
    // What the advance leaves to do afterwards (the documents, and the reactors and projections behind them) counts too:
    // one process leaves more of it for later than three do, so the costs above alone would favour it.
    const backlog = await renderBacklog(databaseUrl, environment, invoices);
    const drained = await meter.read();
    const documents = {
      ...backlog,
      serviceCpuMs: ((drained.service - before.service) * 1000) / invoices,
      postgresCpuMs: ((drained.postgres - before.postgres) * 1000) / invoices,
      commits: (drained.commits - before.commits) / invoices,
    };
    log(
      `billing: ${documents.atAnswer} of ${invoices} invoice documents rendered when the advance answered; ` +
        `${documents.drainSeconds === null ? 'the rest not within 600 s' : `the rest ${documents.drainSeconds.toFixed(1)} s later`}; per invoice from the advance until then ` +
        `${documents.serviceCpuMs.toFixed(2)} ms service CPU, ${documents.postgresCpuMs.toFixed(2)} ms Postgres CPU, ${documents.commits.toFixed(2)} commits`,
    );
    return {
      processes,
      subscriptions: BILLING_SUBSCRIPTIONS,
      invoices,
      seconds,
      read: { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) },
      reads: latencies.length,
      cost,
      documents,
    };
  } finally {
    await meter.stop();
  }
}

/**
 * Usage ingestion: a subscription billing a sum metric, then POST /usage-events
 * under load, every request a batch of USAGE_BATCH new events (fresh ids per
 * request), each with a numeric property; events/s = requests/s × the batch.
 */
async function usageScenario(databaseUrl: string, service: Service): Promise<void> {
  const environment = randomUUID();
  const caller: Caller = { token: sign({ environments: [environment] }, JWT_SECRET, { algorithm: 'HS256', subject: 'bench', expiresIn: 3600 }) };
  const result = await attempt('POST /usage-events', async () => {
    const subscription = await usageSubscription(service, caller, environment, { code: 'storage', aggregation: 'sum', field: 'gb' });
    const timestamp = new Date(Date.now() - 3_600_000).toISOString();
    const events = Array.from({ length: USAGE_BATCH }, (_, i) => ({
      id: `bench-@@UNIQUE@@-${i}`,
      subscriptionId: subscription.id,
      metricCode: 'storage',
      timestamp,
      properties: { gb: (i % 97) + 0.5, region: 'eu-north-1' },
    }));
    const load = await runLoad('POST /usage-events', {
      url: service.base,
      method: 'POST',
      paths: ['/usage-events'],
      headers: headers(caller, environment, true),
      body: JSON.stringify({ events }),
      uniqueBodyToken: '@@UNIQUE@@',
      expectStatus: 200,
    });
    // Every answered batch recorded all its events (warm-up included): none rejected, none lost.
    const recorded = await withClient(databaseUrl, async (client) =>
      Number((await client.query(`select count(*)::int as n from usage_events where environment_id = $1`, [environment])).rows[0].n),
    );
    if (recorded < load.count * USAGE_BATCH)
      throw new Error(`usage ingestion: ${recorded} events recorded for ${load.count} answered batches of ${USAGE_BATCH}`);
    log(`usage ingestion: ${recorded} events recorded`);
    return load;
  });
  rows.push({
    key: 'usage',
    scenario: `POST /usage-events, batches of ${USAGE_BATCH} new events`,
    result,
    ...(result ? {} : { failure: failures[failures.length - 1] }),
  });
  if (result) log(`usage ingestion: ${Math.round(result.perSecond * USAGE_BATCH)} events/s`);
}

/** A subscription with one event_based item billing `metric` (created with it), graduated in EUR, started two days ago. */
async function usageSubscription(
  service: Service,
  caller: Caller,
  environment: string,
  metric: { code: string; aggregation: string; field: string | null },
): Promise<{ id: string }> {
  const { field, ...rest } = metric;
  await call(service, caller, environment, 'POST', '/billable-metrics', { ...rest, name: metric.code, ...(field === null ? {} : { field }) }, 201);
  const product = await call<{ id: string }>(service, caller, environment, 'POST', '/products', { name: `Usage plan ${metric.code}` }, 201);
  const price = await call<{ id: string }>(
    service,
    caller,
    environment,
    'POST',
    '/prices',
    {
      name: metric.code,
      priceModel: 'graduated',
      pricing: {
        eur: {
          tiers: [
            { upTo: 1000, unitAmount: 10 },
            { upTo: null, unitAmount: 5 },
          ],
        },
      },
      purchase: 'recurring',
      termCount: 1,
      termUnit: 'month',
      billingTiming: 'event_based',
      metricCode: metric.code,
      productId: product.id,
    },
    201,
  );
  const start = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  return call<{ id: string }>(
    service,
    caller,
    environment,
    'POST',
    '/subscriptions',
    {
      customer: { id: randomUUID(), handle: `U-${metric.code}`, name: 'Usage Oy' },
      currency: 'EUR',
      term: { start, end: null },
      items: [{ priceId: price.id }],
    },
    201,
  );
}

/**
 * Usage aggregation: per aggregation, a subscription whose current period holds USAGE_AGGREGATED events (written
 * with one generate_series insert: ingestion speed is the scenario above), then GET /subscriptions/{id}/usage —
 * the usage store's one SQL statement, the same the billing engine and the preview run — once to warm up and 3
 * times timed; the count's quantity is checked against the events written.
 */
async function usageAggregationScenario(databaseUrl: string, service: Service): Promise<void> {
  const environment = randomUUID();
  const caller: Caller = { token: sign({ environments: [environment] }, JWT_SECRET, { algorithm: 'HS256', subject: 'bench', expiresIn: 3600 }) };
  const metrics = [
    { code: 'calls', aggregation: 'count', field: null },
    { code: 'storage', aggregation: 'sum', field: 'gb' },
    { code: 'peak', aggregation: 'max', field: 'gb' },
    { code: 'users', aggregation: 'unique_count', field: 'user' },
  ];
  await attempt('usage aggregation', async () => {
    for (const metric of metrics) {
      const subscription = await usageSubscription(service, caller, environment, metric);
      await withClient(databaseUrl, async (client) => {
        await client.query(
          // With the aggregated value beside the properties, as ingestion stores it (UsageStore.ingest).
          `insert into usage_events (environment_id, id, subscription_id, metric_code, occurred_at, properties, received_at, scaled_value, unique_value)
           select $1, 'agg-' || $3 || '-' || i, $2, $3, now() - interval '1 hour' - i * interval '1 millisecond',
                  jsonb_build_object('gb', (i % 97) + 0.5, 'user', 'u' || (i % 5000)), now(),
                  case when $5 in ('sum', 'max') then ((i % 97) * 10000 + 5000)::bigint end,
                  case when $5 = 'unique_count' then to_jsonb('u' || (i % 5000))::text end
             from generate_series(1, $4::int) as i`,
          [environment, subscription.id, metric.code, USAGE_AGGREGATED, metric.aggregation],
        );
        await client.query('analyze usage_events');
      });
      const read = async () =>
        (await call<{ items: { quantity: number }[] }>(service, caller, environment, 'GET', `/subscriptions/${subscription.id}/usage`, undefined, 200))
          .items[0];
      await read();
      const timings: number[] = [];
      let quantity = 0;
      for (let i = 0; i < 3; i++) {
        const started = process.hrtime.bigint();
        quantity = (await read()).quantity;
        timings.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      if (metric.aggregation === 'count' && quantity !== USAGE_AGGREGATED)
        throw new Error(`usage aggregation: count ${quantity} of ${USAGE_AGGREGATED} events`);
      const medianMs = timings.sort((a, b) => a - b)[1];
      aggregations.push({ aggregation: metric.aggregation, events: USAGE_AGGREGATED, medianMs, quantity });
      log(`usage aggregation: ${metric.aggregation} over ${USAGE_AGGREGATED} events in ${medianMs.toFixed(0)} ms (quantity ${quantity})`);
    }
  });
}

let cleanupOnSignal: () => Promise<void> = stopAllChildren;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the child processes and dropping the bench database`);
    void cleanupOnSignal().finally(() => process.exit(130));
  });
}

main().catch(async (error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`);
  await stopAllChildren();
  process.exit(1);
});
