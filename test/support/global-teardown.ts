import { existsSync, realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { Client } from 'pg';
import type { EmbeddedTestServer } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (adminUrl && template) {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${template}`).finally(() => admin.end());
  }
  const server = (globalThis as { __embeddedPostgres?: EmbeddedTestServer }).__embeddedPostgres;
  if (server) {
    await server.stop();
    // A data folder mapped out of an unreachable temporary folder (see placeDataFolder) goes too.
    const mappedHome = dirname(server.dataDir);
    if (!server.dataDir.startsWith(realpathSync(server.root) + sep) && basename(server.dataDir) === 'postgres' && existsSync(join(mappedHome, 'origin'))) {
      rmSync(mappedHome, { recursive: true, force: true });
    }
    rmSync(server.root, { recursive: true, force: true });
  }
}
