import { resolve } from 'node:path';
import { AppConfig, JsonLogger } from '@billing/platform';
import { runMigrations } from './data-source';
import { startEmbeddedPostgres } from './embedded-postgres';

/**
 * DATABASE_URL when set; otherwise a real embedded Postgres whose data lives
 * under DATA_DIR (./.data by default) and survives restarts. Migrations run
 * before the service takes traffic.
 */
export async function resolveDatabase(config: AppConfig, logger: JsonLogger): Promise<{ config: AppConfig; stop: () => Promise<void> }> {
  let url = config.databaseUrl;
  let stop: () => Promise<void> = async () => undefined;
  if (!url) {
    const dataDir = resolve(config.dataDir, 'postgres');
    logger.write('info', { msg: 'DATABASE_URL is not set: starting embedded Postgres', dataDir }, 'Database');
    const embedded = await startEmbeddedPostgres({ dataDir, port: 54329 + (config.port % 1000), database: 'billing' });
    url = embedded.url;
    stop = embedded.stop;
  }
  await runMigrations(url);
  logger.write('info', { msg: 'migrations applied' }, 'Database');
  return { config: { ...config, databaseUrl: url }, stop };
}
