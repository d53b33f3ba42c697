import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '../../apps/api/src/database/data-source';
import { startEmbeddedPostgres } from '../../apps/api/src/database/embedded-postgres';
import { databaseUrlFor } from './database-url';

/**
 * Runs once before all tests: finds a Postgres (DATABASE_URL, or an embedded
 * server in a fresh temporary folder) and prepares a migrated template
 * database from which every test file clones its own database.
 */
export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const dataDir = mkdtempSync(join(tmpdir(), 'billing-test-pg-'));
    const server = await startEmbeddedPostgres({ dataDir, database: 'postgres' });
    (globalThis as { __embeddedPostgres?: unknown }).__embeddedPostgres = { stop: server.stop, dataDir };
    adminUrl = server.url;
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
