import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { JsonLogger, loadConfig } from '@billing/platform';
import { createApp } from './create-app';
import { resolveDatabase } from './database/resolve-database';
import { signDevelopmentToken } from './dev-token';

async function main(): Promise<void> {
  const initial = loadConfig();
  const logger = new JsonLogger(initial.logLevel);
  const { config, stop } = await resolveDatabase(initial, logger);
  const app = await createApp(config, { logger });
  if (config.roles.api) {
    await app.listen(config.port, config.host);
    const base = `http://localhost:${config.port}`;
    logger.write('info', { msg: 'API listening', url: base, docs: `${base}/docs`, openapi: `${base}/openapi.json` }, 'Bootstrap');
    if (!config.isProduction && config.jwt.secret) {
      const environment = randomUUID();
      const token = signDevelopmentToken(config, [environment]);
      process.stdout.write(
        `\nAPI docs: ${base}/docs\nTry it:\n  curl -s ${base}/prices -H 'authorization: Bearer ${token}' -H 'x-environment: ${environment}'\n\n`,
      );
    }
  } else {
    logger.write('info', { msg: 'worker running (no HTTP listener: ROLES has no api)' }, 'Bootstrap');
  }
  const shutdown = async (signal: string) => {
    logger.write('info', { msg: 'shutting down', signal }, 'Bootstrap');
    await app.close();
    await stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'startup failed', error: String(error?.stack ?? error) })}\n`);
  process.exit(1);
});
