import 'reflect-metadata';
import { constants } from 'node:os';
import { DataSource } from 'typeorm';
import { dropReplaySchema, replayReadModels } from '@billing/platform';
import { runCli } from './cli';
import { CONTEXTS } from './contexts';
import { ProgressBar } from './progress';

/**
 * `npm run replay`: rebuilds every read model from the log into shadow
 * tables (the live ones are not touched) with a progress bar on stderr, then
 * prints per read model table `equal`, or `DIFFERENT` with the counts and the
 * first differing rows of each side, and last `IDENTICAL`, or `DIFFERENT` with
 * the first differing row named by its key. Exits 1 when any differs.
 */
runCli('replay', async (app, config) => {
  // Interrupted (Ctrl-C, a stop): the shadow schema goes with it, and the exit code says which signal.
  const interrupted = (signal: NodeJS.Signals) => {
    process.stderr.write(`\nreplay: ${signal}: dropping the shadow schema\n`);
    dropReplaySchema(config.databaseUrl!).then(
      () => process.exit(128 + constants.signals[signal]),
      (error: unknown) => {
        process.stderr.write(`replay: the shadow schema could not be dropped (${String(error)}); the next replay drops it\n`);
        process.exit(128 + constants.signals[signal]);
      },
    );
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  const bar = new ProgressBar();
  const started = Date.now();
  const reports = await replayReadModels({
    dataSource: app.get(DataSource),
    databaseUrl: config.databaseUrl!,
    contexts: CONTEXTS,
    progress: (done, total) => bar.update('read models', done, total, Date.now() - started),
  });
  bar.done();
  let first: { table: string; key: string; example: string } | null = null;
  for (const report of reports) {
    for (const table of report.tables) {
      if (table.equal) {
        process.stdout.write(`${report.projection} ${table.table}: equal\n`);
        continue;
      }
      process.stdout.write(
        `${report.projection} ${table.table}: DIFFERENT (${table.liveOnly} live rows not replayed, ${table.replayOnly} replayed rows not live)\n`,
      );
      for (const example of table.examples)
        process.stdout.write(`  ${example.side === 'live' ? 'live only:  ' : 'replay only:'} ${JSON.stringify(example.row)}\n`);
      first ??= { table: table.table, key: keyOf(table.key, table.examples[0].row), example: JSON.stringify(table.examples[0].row) };
    }
  }
  process.stdout.write(first ? `DIFFERENT: first differing row ${first.table} (${first.key}): ${first.example}\n` : 'IDENTICAL\n');
  const events = reports.reduce((sum, report) => sum + report.events, 0);
  const seconds = Math.max((Date.now() - started) / 1000, 0.001);
  process.stderr.write(`replayed ${events} events into ${reports.length} read models in ${seconds.toFixed(1)} s: ${Math.round(events / seconds)} events/s\n`);
  return first ? 1 : 0;
});

/** A row named by its key columns: `environment_id=…, id=…`. */
function keyOf(key: readonly string[], row: unknown): string {
  const values = row as Record<string, unknown>;
  return key.map((column) => `${column}=${typeof values[column] === 'string' ? values[column] : JSON.stringify(values[column])}`).join(', ');
}
