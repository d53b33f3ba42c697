import 'reflect-metadata';
import { ProjectionRunner } from '@billing/event-store';
import { runCli } from './cli';

/** Progress lines at most this often (and after the last page). */
const PROGRESS_EVERY_MS = 1000;

/**
 * `npm run rebuild -- [projection ...]`: empties read models and replays them
 * from position zero (all projections when none is named), in one pass over
 * the log, with progress (events/s and ETA) on stderr. Run it with the
 * service's workers stopped or alongside them: the runner's per-projection lock
 * keeps one active writer either way.
 */
runCli('rebuild', async (app, _config, logger) => {
  const runner = app.get(ProjectionRunner);
  const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : runner.projectionNames;
  let logged = 0;
  let applyMs: ReadonlyMap<string, number> = new Map();
  const started = Date.now();
  const events = await runner.rebuild(names, {
    progress: (progress) => {
      applyMs = progress.applyMs;
      const last = progress.events === progress.total;
      if (!last && progress.elapsedMs - logged < PROGRESS_EVERY_MS) return;
      logged = progress.elapsedMs;
      const perSecond = progress.events / Math.max(progress.elapsedMs / 1000, 0.001);
      logger.write(
        'info',
        {
          msg: 'rebuilding',
          events: progress.events,
          total: progress.total,
          eventsPerSecond: Math.round(perSecond),
          etaSeconds: Math.round((progress.total - progress.events) / Math.max(perSecond, 1)),
        },
        'Rebuild',
      );
    },
  });
  // The projections applied each page side by side: each one's time is what its pages took, overlapping the others'.
  for (const name of names) logger.write('info', { msg: 'rebuilt', projection: name, ms: applyMs.get(name) ?? 0 }, 'Rebuild');
  const ms = Date.now() - started;
  logger.write(
    'info',
    { msg: 'rebuild finished', projections: names.length, events, ms, eventsPerSecond: Math.round(events / Math.max(ms / 1000, 0.001)) },
    'Rebuild',
  );
  return 0;
});
