import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase, TestDatabase } from '@billing/testing';

/**
 * Helpers for tests that run the built service as real processes, the way
 * `npm start` runs it: `node <build>/apps/api/src/main.js`.
 */

export const REPO = resolve(__dirname, '..', '..');

/**
 * Builds apps and libs (what main.js needs) with the same swc settings as
 * `npm run build`, into a folder of its own under dist/ (so test files
 * building at the same time, or a developer's `npm start`, do not collide).
 */
export function buildService(): { main: string; folder: string; remove(): void } {
  const folder = join(REPO, 'dist', `.test-processes-${process.pid}-${randomBytes(3).toString('hex')}`);
  execFileSync(join(REPO, 'node_modules', '.bin', 'swc'), ['apps', 'libs', '-d', folder, '--config-file', '.swcrc', '--ignore', '**/*.spec.ts', '--quiet'], {
    cwd: REPO,
    stdio: 'pipe',
  });
  return { main: join(folder, 'apps', 'api', 'src', 'main.js'), folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** A temporary folder the `postgres` account can enter (mkdtemp makes 0700 folders). */
export function reachableTempDir(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(folder, 0o755);
  return folder;
}

export function freePort(): Promise<number> {
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

/** Holds a port, like another program would. */
export function occupyPort(port: number, host = '127.0.0.1'): Promise<Server> {
  return new Promise((resolveServer, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => resolveServer(server));
  });
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Its JSON log lines. */
  logLines(): Array<Record<string, unknown>>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForReady(timeoutMs?: number): Promise<void>;
  waitForLog(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
}

const running = new Set<ChildProcess>();

/** Starts `node main.js` with DATABASE_URL unset unless given, and the environment of a plain `npm start`. */
export function startService(main: string, env: Record<string, string | undefined>): ServiceProcess {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATABASE_URL', 'NODE_ENV', 'TEST_PG_ADMIN_URL', 'TEST_PG_TEMPLATE', 'JWT_SECRET', 'DATA_DIR', 'PORT', 'ROLES']) delete base[name];
  for (const name of Object.keys(base)) if (name.startsWith('npm_')) delete base[name];
  const merged: Record<string, string | undefined> = { ...base, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  const port = Number(merged.PORT ?? 3000);
  const child = spawn(process.execPath, [main], { cwd: REPO, env: merged as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      // Let the last output arrive.
      setTimeout(() => done({ code, signal }), 50);
    }),
  );
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const logLines = () =>
    text.split('\n').flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  return {
    child,
    pid: child.pid ?? 0,
    port,
    output: () => text,
    logLines,
    exited,
    async waitForReady(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (hasExited) throw new Error(`the service exited before it was ready:\n${text}`);
        try {
          // A process still busy starting (its workers catching up, on shared cores) may answer slowly: slow is still ready.
          const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(10_000) });
          if (response.status === 200) return;
        } catch {
          /* not listening yet */
        }
        await sleep(100);
      }
      throw new Error(`the service was not ready within ${timeoutMs} ms:\n${text}`);
    },
    async waitForLog(predicate, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = logLines().find(predicate);
        if (found) return found;
        if (hasExited) throw new Error(`the service exited without that log line:\n${text}`);
        await sleep(20);
      }
      throw new Error(`no such log line within ${timeoutMs} ms:\n${text}`);
    },
  };
}

/**
 * For a describe block: the service built and a fresh database before its tests; afterwards any service left
 * running killed, the database dropped and the build removed. `start` runs a service on a free port and waits
 * until it is ready.
 */
export function builtServiceOnFreshDatabase(): {
  readonly database: () => TestDatabase;
  start(env?: Record<string, string>): Promise<{ service: ServiceProcess; baseUrl: string }>;
} {
  let build: ReturnType<typeof buildService> | undefined;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    build = buildService();
    database = await createTestDatabase();
  });
  afterAll(async () => {
    killLeftoverServices();
    await database?.drop();
    build?.remove();
  });
  return {
    database: () => database!,
    async start(env = {}) {
      const port = await freePort();
      const service = startService(build!.main, { DATABASE_URL: database!.url, PORT: String(port), LOG_LEVEL: 'warn', ...env });
      await service.waitForReady(60_000);
      return { service, baseUrl: `http://127.0.0.1:${port}` };
    },
  };
}

/** Kills (SIGKILL) service processes a failed test left running. */
export function killLeftoverServices(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** The pid on the first line of the data folder's postmaster.pid, or null. */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0], 10);
    return Number.isInteger(pid) ? pid : null;
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function waitUntilGone(pid: number, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

/** Stops (immediate shutdown) a postmaster a failed test left on one of its own data folders. */
export async function stopLeftoverPostmaster(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === null || !isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGQUIT');
  } catch {
    /* gone */
  }
  await waitUntilGone(pid, 10_000);
}

/** The 'startup failed' line a failed start writes (on stderr). */
export function startupFailure(service: ServiceProcess): { cause: string; hint: string } | undefined {
  return service.logLines().find((line) => line.msg === 'startup failed') as { cause: string; hint: string } | undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}

/**
 * A TCP proxy in front of Postgres that holds every connection until
 * `parties` connections are waiting, then lets them all through at once (and
 * every later one directly). Each service process opens one connection first
 * and waits for it, so fifteen processes pass the barrier together and run
 * into their migrations at the same moment, however staggered they booted.
 */
export async function barrierProxy(target: string, parties: number, timeoutMs = 150_000): Promise<{ url: string; releasedAt(): number | null; close(): void }> {
  const upstream = new URL(target);
  const waiting: Array<() => void> = [];
  let open = false;
  let releasedAt: number | null = null;
  const sockets = new Set<Socket>();
  const release = () => {
    open = true;
    releasedAt ??= Date.now();
    for (const go of waiting.splice(0)) go();
  };
  const timer = setTimeout(release, timeoutMs);
  const server = createServer((client) => {
    client.pause();
    sockets.add(client);
    const go = () => {
      const server = connect(Number(upstream.port || 5432), upstream.hostname || '127.0.0.1');
      sockets.add(server);
      server.once('connect', () => {
        client.pipe(server);
        server.pipe(client);
        client.resume();
      });
      const end = () => {
        client.destroy();
        server.destroy();
        sockets.delete(client);
        sockets.delete(server);
      };
      client.once('close', end);
      server.once('close', end);
      client.on('error', end);
      server.on('error', end);
    };
    if (open) go();
    else {
      waiting.push(go);
      if (waiting.length >= parties) release();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const proxied = new URL(target);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: proxied.toString(),
    releasedAt: () => releasedAt,
    close: () => {
      clearTimeout(timer);
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
