/**
 * Child process, used when pgbench is not on PATH: `node raw-pg.js <spec.json>`.
 * The same transaction as the pgbench script (BEGIN; event insert; outbox
 * insert; COMMIT, each a simple-protocol round trip) from `connections`
 * concurrent pg clients, a warm-up and then the measured window.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from 'pg';
import { LoadResult, quantile, sortedLatencies } from './stats';

export interface RawPgSpec {
  readonly url: string;
  readonly statements: readonly string[];
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly out: string;
}

async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RawPgSpec;
  const clients = await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      const client = new Client({ connectionString: spec.url, application_name: 'billing-bench-raw' });
      await client.connect();
      return client;
    }),
  );
  const latencies: number[] = [];
  let errors = 0;
  const transaction = async (client: Client) => {
    try {
      for (const statement of spec.statements) await client.query(statement);
    } catch (error) {
      errors += 1;
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
  };
  const window = async (seconds: number, record: boolean) => {
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          await transaction(client).catch(() => undefined);
          if (record) latencies.push(performance.now() - t0);
        }
      }),
    );
    return (performance.now() - started) / 1000;
  };
  if (spec.warmupSeconds > 0) await window(spec.warmupSeconds, false);
  errors = 0;
  const seconds = await window(spec.seconds, true);
  await Promise.all(clients.map((client) => client.end()));
  const sorted = sortedLatencies(latencies);
  const ok = sorted.length - errors;
  const result: LoadResult = {
    seconds,
    count: sorted.length,
    perSecond: Math.round((ok / seconds) * 10) / 10,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
    statuses: { ok },
    non2xx: 0,
    unexpected: errors,
    errors,
    timeouts: 0,
    tool: `pg (node ${process.version}, ${spec.connections} clients)`,
  };
  writeFileSync(spec.out, JSON.stringify(result));
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
