import 'reflect-metadata';
import { ProjectionRunner } from '@billing/event-store';
import { JsonLogger, loadConfig } from '@billing/platform';
import { createApp } from './create-app';
import { resolveDatabase } from './database/resolve-database';

/**
 * `npm run rebuild -- [projection ...]`: empties read models and replays them
 * from position zero (all projections when none is named). Run it with the
 * service's workers stopped or alongside them: the runner's per-projection lock
 * keeps one active writer either way.
 */
async function main(): Promise<void> {
  const initial = { ...loadConfig(), roles: { api: false, worker: false } };
  const logger = new JsonLogger(initial.logLevel);
  const { config, stop } = await resolveDatabase(initial, logger);
  const app = await createApp(config, { logger });
  const runner = app.get(ProjectionRunner);
  const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : runner.projectionNames;
  for (const name of names) {
    const started = Date.now();
    await runner.rebuild(name);
    logger.write('info', { msg: 'rebuilt', projection: name, ms: Date.now() - started }, 'Rebuild');
  }
  await app.close();
  await stop();
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
