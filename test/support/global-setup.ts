import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '../../apps/api/src/database/data-source';
import { startEmbeddedPostgres } from '../../apps/api/src/database/embedded-postgres';
import { databaseUrlFor } from './database-url';

export interface EmbeddedTestServer {
  stop(): Promise<void>;
  /** The temporary folder made for this run. */
  readonly root: string;
  /** The real data folder (inside root unless it had to be mapped elsewhere). */
  readonly dataDir: string;
}

/**
 * Runs once before all tests: finds a Postgres (DATABASE_URL, or an embedded
 * server in a fresh temporary folder) and prepares a migrated template
 * database from which every test file clones its own database.
 */
export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const root = mkdtempSync(join(tmpdir(), 'billing-test-pg-'));
    // mkdtemp makes it 0700; as root, Postgres runs as the `postgres` account, which must enter it.
    chmodSync(root, 0o755);
    const server = await startEmbeddedPostgres({ dataDir: join(root, 'postgres'), database: 'postgres' });
    const handle: EmbeddedTestServer = { stop: server.stop, root, dataDir: server.dataDir };
    (globalThis as { __embeddedPostgres?: EmbeddedTestServer }).__embeddedPostgres = handle;
    adminUrl = server.adminUrl;
  }
  const template = `billing_template_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${template}`);
    await admin.query(`create database ${template}`);
  } finally {
    await admin.end();
  }
  await runMigrations(databaseUrlFor(adminUrl, template));
  process.env.TEST_PG_ADMIN_URL = adminUrl;
  process.env.TEST_PG_TEMPLATE = template;
}
