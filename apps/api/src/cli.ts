import { INestApplicationContext } from '@nestjs/common';
import { AppConfig, JsonLogger, loadConfig } from '@billing/platform';
import { createApp } from './create-app';
import { resolveDatabase } from './database/resolve-database';
import { describeStartupFailure } from './database/startup-error';

/**
 * Runs a command beside the service (`npm run replay`, `audit:verify`,
 * `rebuild`): stdout carries its results only; logs and progress go to
 * stderr. With DATABASE_URL unset and the service running on DATA_DIR, it
 * uses that service's embedded Postgres. A known failure is one line on
 * stderr (what went wrong, then what to do); `work` answers the exit code.
 */
export function runCli(name: string, work: (app: INestApplicationContext, config: AppConfig, logger: JsonLogger) => Promise<number>): void {
  const main = async (): Promise<number> => {
    const initial = { ...loadConfig(), roles: { api: false, worker: false } };
    const logger = new JsonLogger(initial.logLevel, process.stderr);
    const { config, stop } = await resolveDatabase(initial, logger, { shareRunningService: true });
    try {
      const app = await createApp(config, { logger });
      try {
        return await work(app, config, logger);
      } finally {
        await app.close();
      }
    } finally {
      await stop();
    }
  };
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      // The stack only for a failure nobody anticipated.
      const { cause, hint, stack } = describeStartupFailure(error);
      process.stderr.write(`${name}: ${cause}; ${hint}\n${stack ? `${stack}\n` : ''}`);
      process.exit(1);
    },
  );
}
