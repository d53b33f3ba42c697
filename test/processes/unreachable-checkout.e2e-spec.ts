import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildService, freePort, isAlive, killLeftoverServices, postmasterPid, startService, stopLeftoverPostmaster, waitUntilGone } from './process-support';

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Issue: "As root, a checkout in a folder the embedded Postgres's unprivileged
 * user cannot enter (for example cloned into /root, mode 700) fails today."
 * Postgres runs as the `postgres` account; a data folder below a mode-700
 * folder is out of its reach, so its data is kept in a folder it can reach,
 * linked from DATA_DIR/postgres (see placeDataFolder). Root only: as any other
 * user, Postgres runs as that user and reaches whatever it does.
 */
(asRoot ? describe : describe.skip)('as root, a DATA_DIR the postgres account cannot enter', () => {
  jest.setTimeout(60_000);
  let build: ReturnType<typeof buildService>;
  // mkdtemp: mode 0700, like a clone under /root or in `mktemp -d`.
  const dataDir = mkdtempSync(join(tmpdir(), 'billing-unreachable-'));
  const link = join(dataDir, 'postgres');

  beforeAll(() => {
    build = buildService();
  });

  afterAll(async () => {
    killLeftoverServices();
    let mapped: string | null = null;
    try {
      mapped = resolve(dataDir, readlinkSync(link));
    } catch {
      /* no link: nothing was mapped */
    }
    if (mapped) {
      await stopLeftoverPostmaster(mapped);
      const home = dirname(mapped);
      // Only the mapped folder made for this test's DATA_DIR.
      if (existsSync(join(home, 'origin')) && readFileSync(join(home, 'origin'), 'utf8').trim() === link) rmSync(home, { recursive: true, force: true });
    }
    rmSync(dataDir, { recursive: true, force: true });
    build?.remove();
  });

  it('starts, keeps the data in a reachable folder linked from DATA_DIR/postgres, finds it again on the next start, and SIGTERM stops its Postgres', async () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const port = String(await freePort());
    const first = startService(build.main, { DATA_DIR: dataDir, PORT: port });
    await first.waitForReady();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const mapped = resolve(dataDir, readlinkSync(link));
    expect(existsSync(join(mapped, 'PG_VERSION'))).toBe(true);
    expect(first.logLines().some((line) => line.level === 'warn' && String(line.msg).includes(mapped))).toBe(true);
    const postgres = postmasterPid(mapped);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(await waitUntilGone(postgres!, 5_000)).toBe(true);

    const second = startService(build.main, { DATA_DIR: dataDir, PORT: port });
    await second.waitForReady();
    expect(resolve(dataDir, readlinkSync(link))).toBe(mapped);
    expect(second.logLines().some((line) => String(line.msg).includes('initdb'))).toBe(false); // the same cluster
    const again = postmasterPid(mapped);
    expect(again !== null && isAlive(again)).toBe(true);
    second.child.kill('SIGINT');
    expect((await second.exited).code).toBe(0);
    expect(await waitUntilGone(again!, 5_000)).toBe(true);
  });
});
