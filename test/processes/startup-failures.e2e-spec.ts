import { rmSync } from 'node:fs';
import { Server } from 'node:net';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import {
  buildService,
  freePort,
  isAlive,
  killLeftoverServices,
  occupyPort,
  postmasterPid,
  reachableTempDir,
  ServiceProcess,
  startService,
  startupFailure,
  stopLeftoverPostmaster,
  waitUntilGone,
} from './process-support';

/**
 * Issue: "Every startup failure must print its cause and a hint: a second
 * `npm start` on a data folder already in use, a port in use, an unreachable
 * `DATABASE_URL`, a missing `JWT_SECRET` in production." The built service as
 * a real process: one JSON line `startup failed` with `cause` (the real
 * message, never "undefined") and `hint`, and a non-zero exit code.
 */
describe('startup failures say what went wrong and what to do', () => {
  jest.setTimeout(60_000);
  let build: ReturnType<typeof buildService>;
  const folders: string[] = [];
  const servers: Server[] = [];
  let database: TestDatabase | null = null;

  beforeAll(() => {
    build = buildService();
  });

  afterAll(async () => {
    killLeftoverServices();
    for (const server of servers) server.close();
    for (const folder of folders) {
      await stopLeftoverPostmaster(join(folder, 'postgres'));
      rmSync(folder, { recursive: true, force: true });
    }
    await database?.drop();
    build?.remove();
  });

  const dataFolder = () => {
    const folder = reachableTempDir('billing-failures-');
    folders.push(folder);
    return folder;
  };

  async function expectFailure(service: ServiceProcess): Promise<{ cause: string; hint: string }> {
    const { code } = await service.exited;
    const failure = startupFailure(service);
    if (!failure) throw new Error(`no 'startup failed' line:\n${service.output()}`);
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(typeof failure.cause).toBe('string');
    expect(typeof failure.hint).toBe('string');
    expect(failure.cause).not.toMatch(/^(undefined|null|)$/);
    expect(failure.hint.length).toBeGreaterThan(10);
    return failure;
  }

  it('an unreachable DATABASE_URL', async () => {
    const service = startService(build.main, { DATABASE_URL: 'postgres://x@127.0.0.1:1/x', PORT: String(await freePort()) });
    const failure = await expectFailure(service);
    expect(failure.cause).toContain('ECONNREFUSED 127.0.0.1:1');
    expect(failure.cause).toContain('postgres://x@127.0.0.1:1/x');
    expect(failure.hint).toContain('DATABASE_URL');
    expect(failure.hint).toContain('127.0.0.1:1');
  });

  it('a DATABASE_URL with a wrong password: the password is not printed', async () => {
    const admin = new URL(process.env.TEST_PG_ADMIN_URL!);
    admin.username = 'nobody_here';
    admin.password = 'secret-password';
    const service = startService(build.main, { DATABASE_URL: admin.toString(), PORT: String(await freePort()) });
    const failure = await expectFailure(service);
    expect(failure.cause).toContain('nobody_here');
    expect(service.output()).not.toContain('secret-password');
    expect(failure.hint).toContain('DATABASE_URL');
  });

  it('NODE_ENV=production without JWT_SECRET', async () => {
    const service = startService(build.main, { NODE_ENV: 'production', PORT: String(await freePort()) });
    const failure = await expectFailure(service);
    expect(failure.cause).toContain('JWT_SECRET');
    expect(failure.hint).toContain('NODE_ENV=production');
    expect(failure.hint).toContain('JWT_SECRET');
  });

  it('a port in use', async () => {
    database = await createTestDatabase();
    const port = await freePort();
    servers.push(await occupyPort(port));
    const service = startService(build.main, { DATABASE_URL: database.url, PORT: String(port), DATABASE_POOL_SIZE: '4' });
    const failure = await expectFailure(service);
    expect(failure.cause).toContain('EADDRINUSE');
    expect(failure.cause).toContain(String(port));
    expect(failure.hint).toContain(`port ${port} is already in use`);
    expect(failure.hint).toContain('PORT=');
  });

  it('a port in use with the embedded Postgres: the Postgres it had started is stopped again', async () => {
    const dataDir = dataFolder();
    const port = await freePort();
    servers.push(await occupyPort(port));
    const service = startService(build.main, { DATA_DIR: dataDir, PORT: String(port) });
    const started = await service.waitForLog((line) => line.msg === 'embedded Postgres started');
    const failure = await expectFailure(service);
    expect(failure.cause).toContain('EADDRINUSE');
    expect(await waitUntilGone(Number(started.pid), 5_000)).toBe(true);
    expect(postmasterPid(join(dataDir, 'postgres'))).toBeNull();
  });

  it('a second start on a data folder in use', async () => {
    const dataDir = dataFolder();
    const first = startService(build.main, { DATA_DIR: dataDir, PORT: String(await freePort()) });
    await first.waitForReady();
    const postgres = postmasterPid(join(dataDir, 'postgres'));

    const second = startService(build.main, { DATA_DIR: dataDir, PORT: String(await freePort()) });
    const failure = await expectFailure(second);
    expect(failure.cause).toContain(`is in use by another running service process (pid ${first.pid}`);
    expect(failure.cause).toContain(join(dataDir, 'postgres'));
    expect(failure.hint).toContain(`kill ${first.pid}`);
    expect(failure.hint).toContain('DATA_DIR');

    // The first one and its Postgres are untouched.
    expect(isAlive(postgres!)).toBe(true);
    await first.waitForReady(5_000);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(await waitUntilGone(postgres!, 5_000)).toBe(true);
  });
});
