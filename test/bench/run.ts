/**
 * `npm run bench`: measures the command path against what Postgres itself does
 * for the same writes on this machine, and the cost of reads.
 *
 * 1. baseline: N concurrent clients each run the event store's transaction by
 *    hand with pg (insert stream row, insert event, notify, commit).
 * 2. command path: POST /products over HTTP (token check, validation, decide,
 *    append, projector, read-your-writes wait) with the same concurrency.
 * 3. reads: GET /products/{id} over HTTP.
 * Uses DATABASE_URL when set, else an embedded Postgres in a temporary folder.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { loadConfig } from '@billing/platform';
import { createApp } from '../../apps/api/src/create-app';
import { runMigrations } from '../../apps/api/src/database/data-source';
import { ensureDatabase, startEmbeddedPostgres } from '../../apps/api/src/database/embedded-postgres';
import { signDevelopmentToken } from '../../apps/api/src/dev-token';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;

interface Result {
  name: string;
  operations: number;
  perSecond: number;
  p50: number;
  p99: number;
}

async function measure(name: string, operation: () => Promise<void>): Promise<Result> {
  const latencies: number[] = [];
  const deadline = Date.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        await operation();
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] * 100) / 100;
  return { name, operations: latencies.length, perSecond: Math.round(latencies.length / (DURATION_MS / 1000)), p50: at(0.5), p99: at(0.99) };
}

async function main(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'billing-bench-pg-'));
  if (!adminUrl) {
    const embedded = await startEmbeddedPostgres({ dataDir, database: 'postgres' });
    adminUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const database = `billing_bench_${Date.now()}`;
  await ensureDatabase(adminUrl, database);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  await runMigrations(databaseUrl);

  const pool = new Pool({ connectionString: databaseUrl, max: CONCURRENCY });
  const baseline = await measure('postgres baseline: one event-store append per transaction (pg, no HTTP)', async () => {
    const client = await pool.connect();
    try {
      const environmentId = randomUUID();
      const streamId = randomUUID();
      await client.query('begin');
      await client.query(`insert into streams (environment_id, stream_type, stream_id, version) values ($1, 'bench', $2, 1) on conflict do nothing`, [environmentId, streamId]);
      await client.query(
        `insert into events (event_id, environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at)
         values ($1, $2, 'bench', $3, 1, 'BenchHappened', 1, '{"name":"x"}', '{}', now())`,
        [randomUUID(), environmentId, streamId],
      );
      await client.query(`select pg_notify('billing_events', '')`);
      await client.query('commit');
    } finally {
      client.release();
    }
  });
  await pool.end();

  const config = loadConfig({ ...process.env, NODE_ENV: 'development', DATABASE_URL: databaseUrl, LOG_LEVEL: 'error', DATABASE_POOL_SIZE: String(CONCURRENCY + 4) });
  const app = await createApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const environment = randomUUID();
  const headers = { authorization: `Bearer ${signDevelopmentToken(config, [environment])}`, 'x-environment': environment, 'content-type': 'application/json' };
  const created: string[] = [];
  const command = await measure('command path: POST /products (HTTP + JWT + validation + append + projection, read-your-writes)', async () => {
    const response = await fetch(`${base}/products`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench product' }) });
    if (response.status !== 201) throw new Error(`POST /products answered ${response.status}: ${await response.text()}`);
    created.push(((await response.json()) as { id: string }).id);
  });
  let next = 0;
  const read = await measure('read path: GET /products/{id} (HTTP + JWT + read model)', async () => {
    const id = created[next++ % created.length];
    const response = await fetch(`${base}/products/${id}`, { headers });
    if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
    await response.arrayBuffer();
  });
  await app.close();

  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
  if (stopEmbedded) await stopEmbedded();
  rmSync(dataDir, { recursive: true, force: true });

  console.log(`\nconcurrency ${CONCURRENCY}, ${DURATION_MS / 1000} s each\n`);
  console.log('| measurement | operations | per second | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|');
  for (const r of [baseline, command, read]) console.log(`| ${r.name} | ${r.operations} | ${r.perSecond} | ${r.p50} | ${r.p99} |`);
  console.log(`\ncommand path reaches ${Math.round((command.perSecond / baseline.perSecond) * 100)}% of the Postgres baseline`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
