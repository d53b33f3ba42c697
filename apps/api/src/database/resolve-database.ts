import { resolve } from 'node:path';
import { Client } from 'pg';
import { AppConfig, JsonLogger } from '@billing/platform';
import { DataFolderInUseError } from './data-folder';
import { runMigrations } from './data-source';
import { startEmbeddedPostgres } from './embedded-postgres';
import { errorText, StartupError } from './startup-error';

export interface ResolveDatabaseOptions {
  /** Passed to startEmbeddedPostgres (main runs the server in its own process group). */
  readonly detached?: boolean;
  /** Called as soon as an embedded server process exists, with its stop. */
  readonly onEmbeddedSpawned?: (stop: () => Promise<void>) => void;
  /**
   * For the commands beside a running service (replay, audit:verify): when
   * a live service process owns DATA_DIR, use its embedded Postgres instead
   * of failing.
   */
  readonly shareRunningService?: boolean;
}

/**
 * DATABASE_URL when set; otherwise a real embedded Postgres whose data lives
 * under DATA_DIR (./.data by default) and survives restarts. Migrations run
 * before the service takes traffic; if anything fails, an embedded server
 * started here is stopped again before the error is thrown.
 */
export async function resolveDatabase(
  config: AppConfig,
  logger: JsonLogger,
  options: ResolveDatabaseOptions = {},
): Promise<{ config: AppConfig; stop: () => Promise<void> }> {
  let url = config.databaseUrl;
  let stop: () => Promise<void> = async () => undefined;
  if (url) {
    await checkConnection(url);
  } else {
    const dataDir = resolve(config.dataDir, 'postgres');
    logger.write('info', { msg: 'DATABASE_URL is not set: starting embedded Postgres', dataDir }, 'Database');
    try {
      const embedded = await startEmbeddedPostgres({
        dataDir,
        port: 54329 + (config.port % 1000),
        database: 'billing',
        detached: options.detached,
        onSpawned: options.onEmbeddedSpawned,
        log: (level, fields) => logger.write(level, fields, 'Database'),
      });
      url = embedded.url;
      stop = embedded.stop;
    } catch (error) {
      if (!options.shareRunningService || !(error instanceof DataFolderInUseError) || error.databaseUrl === null) throw error;
      logger.write('info', { msg: `${error.message}: using its Postgres`, databaseUrl: error.databaseUrl }, 'Database');
      url = error.databaseUrl;
      await checkConnection(url);
    }
  }
  try {
    await runMigrations(url, { onWait: () => logger.write('info', { msg: 'another process is migrating this database: waiting for it' }, 'Database') });
  } catch (error) {
    await stop();
    throw new StartupError(
      `the database migrations failed: ${errorText(error)}`,
      'the database user needs to create tables in the database; the migrations run in transactions, so nothing half-done is left: fix the cause and start again',
      { cause: error },
    );
  }
  logger.write('info', { msg: 'migrations applied' }, 'Database');
  return { config: { ...config, databaseUrl: url }, stop };
}

/** DATABASE_URL with the password hidden, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a valid URL)';
  }
}

/** Connects to DATABASE_URL (a time-out is tried again), so an unreachable or wrong one fails with what is wrong and what to do. */
export async function checkConnection(url: string): Promise<void> {
  const shown = redactUrl(url);
  let where = shown;
  try {
    const parsed = new URL(url);
    where = `${parsed.hostname || 'localhost'}:${parsed.port || 5432}`;
  } catch {
    throw new StartupError(
      `DATABASE_URL is not a valid URL`,
      'use postgres://user:password@host:5432/database, or unset DATABASE_URL to use the embedded Postgres',
    );
  }
  // A server that answers nothing within 10 s may be busy (many processes starting at once on a small machine), not
  // absent: a time-out is tried again, up to CONNECTION_CHECK_TRIES in all; every other failure is reported at once.
  let error: unknown = null;
  for (let attempt = 1; attempt <= CONNECTION_CHECK_TRIES; attempt++) {
    error = await tryConnection(url);
    if (error === null) return;
    if (!/timeout/i.test(errorText(error))) break;
  }
  const code = errorCode(error);
  const fix = 'or unset DATABASE_URL to use the embedded Postgres';
  const hint =
    code === 'ECONNREFUSED'
      ? `nothing accepts connections at ${where}: start Postgres there or correct the host and port in DATABASE_URL, ${fix}`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `the host in DATABASE_URL does not resolve: correct it, ${fix}`
        : code === '28P01' || code === '28000'
          ? `Postgres at ${where} refused the user or password of DATABASE_URL: correct them, ${fix}`
          : code === '3D000'
            ? `the database named in DATABASE_URL does not exist: create it (createdb) or correct the name, ${fix}`
            : /timeout/i.test(errorText(error))
              ? `no answer from ${where} within ${CONNECTION_CHECK_TRIES} tries of 10 s: check the host, port and firewall in DATABASE_URL, ${fix}`
              : `check that Postgres runs at ${where} and that DATABASE_URL is right, ${fix}`;
  throw new StartupError(`cannot connect to the Postgres of DATABASE_URL (${shown}): ${errorText(error)}`, hint, { cause: error });
}

const CONNECTION_CHECK_TRIES = 3;

/** One connection and `select 1` within 10 s: null when it worked, else the error. */
async function tryConnection(url: string): Promise<unknown> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000, application_name: 'billing-connection-check' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function errorCode(error: unknown): string | undefined {
  const own = (error as { code?: unknown })?.code;
  if (typeof own === 'string') return own;
  const nested = (error as { errors?: unknown[] })?.errors;
  return Array.isArray(nested) ? nested.map(errorCode).find(Boolean) : undefined;
}
