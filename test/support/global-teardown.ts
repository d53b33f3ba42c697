import { rmSync } from 'node:fs';
import { Client } from 'pg';

export default async function globalTeardown(): Promise<void> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (adminUrl && template) {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${template}`).finally(() => admin.end());
  }
  const server = (globalThis as { __embeddedPostgres?: { stop(): Promise<void>; dataDir: string } }).__embeddedPostgres;
  if (server) {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}
