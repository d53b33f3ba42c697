import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { JsonLogger, loadConfig } from '@billing/platform';
import { createApp } from './create-app';
import { resolveDatabase } from './database/resolve-database';
import { resolveAuditSigningKey } from './database/audit-signing-key';
import { resolvePaymentsEncryptionKeys } from './database/payments-encryption-key';
import { describeStartupFailure } from './database/startup-error';
import { signDevelopmentToken } from './dev-token';

/**
 * What to undo on the way out, the newest first: the HTTP application, then
 * the embedded Postgres. Filled as startup proceeds, so a signal or a failure
 * halfway through stops exactly what was started.
 */
const cleanups: Array<() => Promise<void>> = [];
let stopping = false;
let started = false;
let failureReported = false;
let listenSettings: { port?: number; host?: string } = {};

function line(stream: NodeJS.WriteStream, level: string, fields: Record<string, unknown>): void {
  stream.write(`${JSON.stringify({ level, time: new Date().toISOString(), context: 'Bootstrap', ...fields })}\n`);
}

/**
 * The JSON logger, with thrown errors written as their message and stack (Nest
 * logs errors as objects) and the last one remembered: when Nest ends the
 * process itself on a failed startup (it calls process.exit(1)), the exit hook
 * below still reports it as the startup failure.
 */
class ServiceLogger extends JsonLogger {
  lastError: unknown = undefined;

  override error(message: unknown, ...rest: unknown[]) {
    if (message instanceof Error) {
      if (!started) this.lastError = message;
      super.error({ msg: message.message || message.name, error: message.stack }, ...rest);
    } else {
      super.error(message, ...rest);
    }
  }
}
let serviceLogger: ServiceLogger | null = null;

function reportStartupFailure(error: unknown): void {
  if (failureReported) return;
  failureReported = true;
  line(process.stderr, 'error', { msg: 'startup failed', ...describeStartupFailure(error, listenSettings) });
}

process.on('exit', (code) => {
  if (!started && !stopping && code !== 0) {
    reportStartupFailure(serviceLogger?.lastError ?? new Error(`the process exited with code ${code} while starting`));
  }
});

async function runCleanups(): Promise<void> {
  for (let cleanup = cleanups.pop(); cleanup; cleanup = cleanups.pop()) {
    try {
      await cleanup();
    } catch (error) {
      line(process.stderr, 'error', { msg: 'error while shutting down', error: String((error as Error)?.stack ?? error) });
    }
  }
}

function shutdown(reason: string, repeated: 'force' | 'ignore'): void {
  if (stopping) {
    if (repeated === 'ignore') return;
    // A second Ctrl-C: leave now. The embedded Postgres's exit hook still signals it to stop.
    line(process.stdout, 'warn', { msg: 'exiting without waiting for the shutdown', reason });
    process.exit(1);
  }
  stopping = true;
  line(process.stdout, 'info', { msg: 'shutting down', signal: reason });
  void runCleanups().then(() => process.exit(0));
}

// Installed before anything starts, so Ctrl-C during startup (initdb, migrations) stops what already runs.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal, 'force'));

// Under `npm start`, a SIGTERM to npm ends npm and its shell but is not passed on to this process:
// when the parent goes away (the process is re-parented), shut down as if signalled.
if (process.env.npm_lifecycle_event) {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown('parent process exited', 'ignore');
  }, 500).unref();
}

async function main(): Promise<void> {
  const loaded = loadConfig();
  listenSettings = { port: loaded.port, host: loaded.host };
  const logger = new ServiceLogger(loaded.logLevel);
  serviceLogger = logger;
  // Before anything starts: production without PAYMENTS_ENCRYPTION_KEY is refused, development uses the key under DATA_DIR.
  const log = (level: 'warn', fields: Record<string, unknown>) => logger.write(level, fields, 'Bootstrap');
  // Likewise AUDIT_SIGNING_KEY: required in production, the development key under DATA_DIR otherwise.
  const initial = resolveAuditSigningKey(resolvePaymentsEncryptionKeys(loaded, log), log);
  const { config, stop } = await resolveDatabase(initial, logger, {
    // Its own process group: Ctrl-C reaches only this process, which closes its connections before stopping Postgres.
    detached: true,
    onEmbeddedSpawned: (stopEmbedded) => cleanups.push(stopEmbedded),
  });
  if (!cleanups.includes(stop)) cleanups.push(stop);
  if (stopping) return;
  const app = await createApp(config, { logger });
  cleanups.push(() => app.close());
  if (stopping) return;
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
  started = true;
}

main().catch(async (error: unknown) => {
  if (stopping) return; // a signal arrived during startup: its shutdown exits
  stopping = true;
  reportStartupFailure(error);
  await runCleanups();
  process.exit(1);
});
