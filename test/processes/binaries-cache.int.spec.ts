import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCopy } from '../../apps/api/src/database/postgres-binaries';
import { buildService } from './process-support';

/**
 * As root, when the `postgres` account cannot run the binaries inside the
 * checkout, they run from a shared copy in the temporary folder. The copy
 * must be atomic (several processes may start at once), world-readable
 * whatever the umask, repaired when a temp cleaner removed files, and refused
 * when someone else could have written to it.
 */
describe('the shared copy of the Postgres binaries', () => {
  jest.setTimeout(60_000);
  const work = mkdtempSync(join(tmpdir(), 'billing-binaries-'));
  const source = join(work, 'private', 'native'); // below a 0700 folder, like a clone in /root
  let build: ReturnType<typeof buildService>;

  beforeAll(() => {
    mkdirSync(join(source, 'bin'), { recursive: true });
    mkdirSync(join(source, 'lib'), { recursive: true });
    mkdirSync(join(source, 'share', 'timezone'), { recursive: true });
    writeFileSync(join(source, 'bin', 'postgres'), '#!/bin/sh\necho postgres\n', { mode: 0o700 });
    writeFileSync(join(source, 'lib', 'libpq.so.5.18'), 'x'.repeat(100_000), { mode: 0o600 });
    symlinkSync('libpq.so.5.18', join(source, 'lib', 'libpq.so.5'));
    writeFileSync(join(source, 'share', 'timezone', 'UTC'), 'utc', { mode: 0o600 });
    chmodSync(join(work, 'private'), 0o700);
    build = buildService();
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    build?.remove();
  });

  function listing(root: string, prefix = ''): string[] {
    return readdirSync(join(root, prefix))
      .sort()
      .flatMap((entry) => {
        const path = join(prefix, entry);
        const stats = lstatSync(join(root, path));
        if (stats.isDirectory()) return [`${path}/ ${(stats.mode & 0o777).toString(8)}`, ...listing(root, path)];
        if (stats.isSymbolicLink()) return [`${path} -> ${readlinkSync(join(root, path))}`];
        return [`${path} ${(stats.mode & 0o777).toString(8)} ${stats.size}`];
      });
  }

  it('eight processes copying at the same moment leave one complete, world-readable copy and no partial folders', async () => {
    const target = join(work, 'cache', 'billing-embedded-postgres-test');
    mkdirSync(join(work, 'cache'));
    const module = join(build.folder, 'apps', 'api', 'src', 'database', 'postgres-binaries.js');
    const script = `require(${JSON.stringify(module)}).ensureCopy(${JSON.stringify(source)}, ${JSON.stringify(target)})`;
    const exits = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          new Promise<{ code: number | null; stderr: string }>((done) => {
            const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
            let stderr = '';
            child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
            child.once('exit', (code) => done({ code, stderr }));
          }),
      ),
    );
    expect(exits).toEqual(exits.map(() => ({ code: 0, stderr: '' })));
    expect(readdirSync(join(work, 'cache'))).toEqual(['billing-embedded-postgres-test']);
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(listing(target)).toEqual([
      'bin/ 755',
      'bin/postgres 755 24',
      'lib/ 755',
      'lib/libpq.so.5 -> libpq.so.5.18',
      'lib/libpq.so.5.18 644 100000',
      'share/ 755',
      'share/timezone/ 755',
      'share/timezone/UTC 644 3',
    ]);
    expect(execFileSync(join(target, 'bin', 'postgres')).toString()).toBe('postgres\n');
  });

  it('files removed from the copy (a temp cleaner) are put back', () => {
    const target = join(work, 'repaired');
    ensureCopy(source, target);
    rmSync(join(target, 'share', 'timezone', 'UTC'));
    rmSync(join(target, 'lib', 'libpq.so.5'));
    ensureCopy(source, target);
    expect(listing(target)).toContain('share/timezone/UTC 644 3');
    expect(listing(target)).toContain('lib/libpq.so.5 -> libpq.so.5.18');
  });

  it('a copy others can write to is refused, with what to do', () => {
    const target = join(work, 'tampered');
    ensureCopy(source, target);
    chmodSync(target, 0o777);
    expect(() => ensureCopy(source, target)).toThrow(/is not a directory owned by this user and writable only by it/);
    try {
      ensureCopy(source, target);
    } catch (error) {
      expect((error as { hint?: string }).hint).toContain(`remove ${target}`);
    }
  });
});
