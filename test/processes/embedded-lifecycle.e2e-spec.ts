import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildService,
  freePort,
  isAlive,
  killLeftoverServices,
  postmasterPid,
  reachableTempDir,
  startService,
  stopLeftoverPostmaster,
  waitUntilGone,
} from './process-support';

/**
 * Issue: "After `kill -9` of a running `npm start`, the embedded Postgres is
 * left running; the next `npm start` on the same data folder must start
 * cleanly, and stopping `npm start` with Ctrl-C or SIGTERM stops the Postgres
 * it started." The built service, as real processes, DATABASE_URL unset.
 */
describe('embedded Postgres lifecycle of the service process', () => {
  jest.setTimeout(60_000);
  let build: ReturnType<typeof buildService>;
  const folders: string[] = [];

  beforeAll(() => {
    build = buildService();
  });

  afterAll(async () => {
    killLeftoverServices();
    for (const folder of folders) {
      await stopLeftoverPostmaster(join(folder, 'postgres'));
      rmSync(folder, { recursive: true, force: true });
    }
    build?.remove();
  });

  const dataFolder = () => {
    const folder = reachableTempDir('billing-lifecycle-');
    folders.push(folder);
    return folder;
  };

  it('after kill -9, the next start stops the Postgres left running and comes up; SIGTERM, then SIGINT, stop it and its Postgres', async () => {
    const dataDir = dataFolder();
    const pgdata = join(dataDir, 'postgres');
    const port = await freePort();

    const first = startService(build.main, { DATA_DIR: dataDir, PORT: String(port) });
    await first.waitForReady();
    const leftover = postmasterPid(pgdata);
    expect(leftover).not.toBeNull();
    first.child.kill('SIGKILL');
    await first.exited;
    expect(isAlive(leftover!)).toBe(true); // what kill -9 leaves behind

    const second = startService(build.main, { DATA_DIR: dataDir, PORT: String(port) });
    await second.waitForReady();
    expect(await waitUntilGone(leftover!, 1_000)).toBe(true);
    expect(second.logLines().some((line) => String(line.msg).includes('left by a service process that is gone: stopping it'))).toBe(true);
    const postgres = postmasterPid(pgdata);
    expect(postgres).not.toBeNull();
    expect(postgres).not.toBe(leftover);

    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(isAlive(postgres!)).toBe(false);
    expect(existsSync(join(pgdata, 'postmaster.pid'))).toBe(false);
    expect(existsSync(`${pgdata}.owner.json`)).toBe(false);

    // Ctrl-C: the terminal sends SIGINT.
    const third = startService(build.main, { DATA_DIR: dataDir, PORT: String(port) });
    await third.waitForReady();
    const again = postmasterPid(pgdata);
    third.child.kill('SIGINT');
    expect(await third.exited).toEqual({ code: 0, signal: null });
    expect(isAlive(again!)).toBe(false);
  });

  it('a SIGTERM while the service is still starting stops the Postgres it already started', async () => {
    const dataDir = dataFolder();
    const pgdata = join(dataDir, 'postgres');
    const service = startService(build.main, { DATA_DIR: dataDir, PORT: String(await freePort()) });
    const started = await service.waitForLog((line) => line.msg === 'embedded Postgres started');
    service.child.kill('SIGTERM'); // migrations and the application are not up yet
    expect((await service.exited).code).toBe(0);
    expect(await waitUntilGone(Number(started.pid), 5_000)).toBe(true);
    expect(existsSync(join(pgdata, 'postmaster.pid'))).toBe(false);
    expect(service.logLines().some((line) => line.msg === 'startup failed')).toBe(false);
  });
});
