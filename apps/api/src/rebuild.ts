import 'reflect-metadata';
import { ProjectionRunner } from '@billing/event-store';
import { runCli } from './cli';

/**
 * `npm run rebuild -- [projection ...]`: empties read models and replays them
 * from position zero (all projections when none is named). Run it with the
 * service's workers stopped or alongside them: the runner's per-projection lock
 * keeps one active writer either way.
 */
runCli('rebuild', async (app, _config, logger) => {
  const runner = app.get(ProjectionRunner);
  const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : runner.projectionNames;
  for (const name of names) {
    const started = Date.now();
    await runner.rebuild(name);
    logger.write('info', { msg: 'rebuilt', projection: name, ms: Date.now() - started }, 'Rebuild');
  }
  return 0;
});
