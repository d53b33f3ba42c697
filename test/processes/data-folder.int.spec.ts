import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { claimDataFolder, placeDataFolder } from '../../apps/api/src/database/data-folder';
import { postgresAccount } from '../../apps/api/src/database/run-as';

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const quiet = () => undefined;

/** The data folder's claim (one service process per folder) and, as root, its mapping out of unreachable folders. */
describe('data folder', () => {
  const work = mkdtempSync(join(tmpdir(), 'billing-data-folder-'));
  const mappedHomes: string[] = [];

  afterAll(() => {
    for (const home of mappedHomes) rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  describe('claim', () => {
    it('is exclusive while its process lives, and released by release()', () => {
      const dataDir = join(work, 'claimed');
      const claim = claimDataFolder(dataDir);
      expect(JSON.parse(readFileSync(`${dataDir}.owner.json`, 'utf8')).pid).toBe(process.pid);
      expect(() => claimDataFolder(dataDir)).toThrow('is in use by this process already');
      claim.release();
      expect(existsSync(`${dataDir}.owner.json`)).toBe(false);
    });

    it('refuses a folder claimed by another live process, and says which one and what to do', () => {
      const dataDir = join(work, 'busy');
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
      try {
        writeFileSync(`${dataDir}.owner.json`, JSON.stringify({ pid: other.pid, startTicks: null, since: 'earlier' }));
        expect(() => claimDataFolder(dataDir)).toThrow(`is in use by another running service process (pid ${other.pid}`);
        try {
          claimDataFolder(dataDir);
        } catch (error) {
          expect((error as { hint: string }).hint).toContain(`kill ${other.pid}`);
        }
      } finally {
        other.kill('SIGKILL');
      }
    });

    it('takes over a claim whose process is gone (kill -9), or that names this very pid (a restarted container)', async () => {
      const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
      await new Promise((done) => dead.once('exit', done));
      for (const [name, pid] of [
        ['dead', dead.pid],
        ['self', process.pid],
      ] as const) {
        const dataDir = join(work, name);
        writeFileSync(`${dataDir}.owner.json`, JSON.stringify({ pid, startTicks: null, since: 'earlier' }));
        const claim = claimDataFolder(dataDir);
        expect(JSON.parse(readFileSync(`${dataDir}.owner.json`, 'utf8')).since).not.toBe('earlier');
        claim.release();
      }
    });
  });

  (asRoot ? describe : describe.skip)('as root, below a folder the postgres account cannot enter', () => {
    const account = asRoot ? postgresAccount() : null;
    // mkdtemp: 0700, out of the postgres account's reach.
    const hidden = mkdtempSync(join(work, 'hidden-'));

    it('maps to the same reachable folder every time, linked from the requested path, also after the mapped folder was removed', () => {
      const requested = join(hidden, 'postgres');
      const mapped = placeDataFolder(requested, account, quiet);
      mappedHomes.push(dirname(mapped));
      expect(mapped).not.toBe(requested);
      expect(lstatSync(requested).isSymbolicLink()).toBe(true);
      expect(resolve(hidden, readlinkSync(requested))).toBe(mapped);
      expect(readFileSync(join(dirname(mapped), 'origin'), 'utf8').trim()).toBe(requested);
      expect(placeDataFolder(requested, account, quiet)).toBe(mapped);
      rmSync(dirname(mapped), { recursive: true, force: true });
      expect(placeDataFolder(requested, account, quiet)).toBe(mapped);
      expect(existsSync(mapped)).toBe(true);
    });

    it('replaces an empty folder an earlier failed start left, and refuses one with content', () => {
      const empty = join(hidden, 'empty', 'postgres');
      mkdirSync(empty, { recursive: true });
      const mapped = placeDataFolder(empty, account, quiet);
      mappedHomes.push(dirname(mapped));
      expect(lstatSync(empty).isSymbolicLink()).toBe(true);

      const full = join(hidden, 'full', 'postgres');
      mkdirSync(full, { recursive: true });
      writeFileSync(join(full, 'PG_VERSION'), '18\n');
      expect(() => placeDataFolder(full, account, quiet)).toThrow(/cannot enter/);
      // Nothing was made for the refused one.
      const mappedRoot = dirname(dirname(mapped));
      const origins = readdirSync(mappedRoot).map((home) => {
        try {
          return readFileSync(join(mappedRoot, home, 'origin'), 'utf8').trim();
        } catch {
          return null;
        }
      });
      expect(origins).not.toContain(full);
    });
  });
});
