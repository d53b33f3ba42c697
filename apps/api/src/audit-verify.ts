import 'reflect-metadata';
import { ChainVerifier } from '@billing/platform';
import { isUuid } from '@billing/shared-kernel';
import { runCli } from './cli';
import { ProgressBar } from './progress';

/**
 * `npm run audit:verify [-- --environment <uuid>]`: recomputes the hash
 * chain of one environment, or of every one, from the log (README, "Audit").
 * Prints one line per environment on stdout (`ok <environment> position
 * <n> hash <hash>` or `MISMATCH <environment> event <id> position <n>
 * differs <what>: <detail>`), progress and speed on stderr; exits 1 if any
 * chain is broken.
 */
const environment = environmentArgument(process.argv.slice(2));

runCli('audit:verify', async (app) => {
  const verifier = app.get(ChainVerifier);
  const environments = environment ? [environment] : await verifier.environments();
  const bar = new ProgressBar();
  const started = Date.now();
  let events = 0;
  let broken = 0;
  for (const id of environments) {
    const result = await verifier.verify(id, (done, total) => bar.update(id, done, total));
    bar.done();
    events += result.eventsChecked;
    if (result.status === 'ok') {
      process.stdout.write(`ok ${id} position ${result.head.position} hash ${result.head.hash}\n`);
    } else {
      broken += 1;
      process.stdout.write(
        `MISMATCH ${id} event ${result.event.id} position ${result.event.position ?? '-'} (global position ${result.event.globalPosition ?? '-'}) differs ${result.differs}: ${result.detail}\n`,
      );
    }
  }
  const seconds = Math.max((Date.now() - started) / 1000, 0.001);
  process.stderr.write(
    `verified ${events} events in ${environments.length} environment(s) in ${seconds.toFixed(1)} s: ${Math.round(events / seconds)} events/s\n`,
  );
  return broken > 0 ? 1 : 0;
});

function environmentArgument(args: readonly string[]): string | null {
  if (args.length === 0) return null;
  const value = args[0] === '--environment' ? args[1] : args[0].startsWith('--environment=') ? args[0].slice('--environment='.length) : undefined;
  if (value === undefined || !isUuid(value) || args.length > (args[0] === '--environment' ? 2 : 1)) {
    process.stderr.write('usage: npm run audit:verify [-- --environment <uuid>]\n');
    process.exit(2);
  }
  return value.toLowerCase();
}
