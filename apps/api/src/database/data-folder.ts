import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { PostgresBinaries } from './postgres-binaries';
import { asAccount, canEnter, PostgresAccount } from './run-as';
import { StartupError } from './startup-error';

type Log = (level: 'debug' | 'info' | 'warn' | 'error', fields: Record<string, unknown>) => void;

/** Where mapped data folders live (see placeDataFolder): kept data under /var/lib, the temporary folder's for temporary ones. */
const PERSISTENT_ROOT = '/var/lib/billing-service';
const TEMPORARY_ROOT = join(tmpdir(), 'billing-service-data');

/**
 * The real Postgres data folder for the requested one. Postgres runs as the
 * unprivileged `postgres` account when this process is root; that account
 * must be able to enter every folder above the data folder. When it cannot
 * (a checkout under /root, or in a `mktemp -d` folder), the data lives in
 * `/var/lib/billing-service/<key>/postgres` instead, `<key>` a hash of the
 * requested path (so the same checkout always finds the same data), and the
 * requested path becomes a symbolic link to it (a requested folder inside
 * the temporary folder is mapped to `<tmp>/billing-service-data/<key>`).
 * Nothing is ever chmod-ed.
 */
export function placeDataFolder(requested: string, account: PostgresAccount | null, log: Log): string {
  const wanted = resolve(requested);
  mkdirSync(dirname(wanted), { recursive: true });
  const existing = lstatOrNull(wanted);
  let real = wanted;
  if (existing) {
    try {
      real = realpathSync(wanted);
    } catch {
      real = resolve(dirname(wanted), readlinkSync(wanted)); // a link whose target was removed: made again below
    }
  }
  if (!account || canEnter(account, dirname(real))) {
    mkdirSync(real, { recursive: true });
    return real;
  }
  const key = createHash('sha256')
    .update(`${realpathSync(dirname(wanted))}${sep}${basename(wanted)}`)
    .digest('hex')
    .slice(0, 16);
  // A data folder in the temporary folder (a test's, a benchmark's) is mapped into the temporary folder too.
  const temporary = wanted.startsWith(`${realpathSync(tmpdir())}${sep}`) || wanted.startsWith(`${tmpdir()}${sep}`);
  const home = join(mappedRoot(account, temporary ? [TEMPORARY_ROOT, PERSISTENT_ROOT] : [PERSISTENT_ROOT, TEMPORARY_ROOT]), key);
  const mapped = join(home, 'postgres');
  if (existing && real !== mapped) {
    if (existing.isDirectory() && readdirSync(wanted).length === 0) {
      rmdirSync(wanted); // an empty folder an earlier, failed start left: replace it by the link
    } else {
      throw new StartupError(
        `the embedded Postgres runs as the unprivileged "${account.name}" account (Postgres refuses root), which cannot enter ${dirname(real)}, where the data folder ${real} is`,
        `move ${real} to a folder "${account.name}" can enter and set DATA_DIR to its parent, or make each folder above it enterable (chmod o+x), or set DATABASE_URL`,
      );
    }
  }
  mkdirSync(home, { recursive: true, mode: 0o755 });
  writeFileSync(join(home, 'origin'), `${wanted}\n`); // for people wondering what it is
  if (!lstatOrNull(wanted)) {
    try {
      symlinkSync(mapped, wanted, 'dir');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || resolve(dirname(wanted), readlinkSync(wanted)) !== mapped) throw error;
    }
  }
  mkdirSync(mapped, { recursive: true });
  log('warn', {
    msg: `the "${account.name}" account the embedded Postgres runs as cannot enter ${dirname(wanted)}: its data lives in ${mapped} (${wanted} links there)`,
    dataDir: mapped,
    link: wanted,
  });
  return mapped;
}

function mappedRoot(account: PostgresAccount, roots: string[]): string {
  for (const root of roots) {
    try {
      mkdirSync(root, { recursive: true, mode: 0o755 });
      if (canEnter(account, root)) return root;
    } catch {
      /* read-only or not creatable: try the next */
    }
  }
  throw new StartupError(
    `the "${account.name}" account the embedded Postgres runs as can enter none of ${roots.join(', ')}`,
    'set DATA_DIR to a folder it can enter, or set DATABASE_URL',
  );
}

interface OwnerRecord {
  readonly pid: number;
  /** The process's start time in clock ticks since boot (Linux), so a reused pid is not mistaken for the owner. */
  readonly startTicks: string | null;
  readonly since: string;
}

/** Claims held by this process (a record with this pid found on disk is otherwise taken for a stale one). */
const claimedHere = new Set<string>();

export interface DataFolderClaim {
  readonly file: string;
  release(): void;
}

/**
 * Marks the data folder as used by this process: `<dataDir>.owner.json`,
 * created exclusively. A file left by a process that no longer runs (killed
 * with -9, a crash, a reboot) is taken over; one of a live process means
 * another service process uses this data folder, which fails with a message
 * saying which one and what to do.
 */
export function claimDataFolder(dataDir: string): DataFolderClaim {
  const file = `${dataDir}.owner.json`;
  if (claimedHere.has(file)) {
    throw new StartupError(`the data folder ${dataDir} is in use by this process already`, 'start one embedded Postgres per data folder and share it');
  }
  const mine: OwnerRecord = { pid: process.pid, startTicks: startTicks(process.pid), since: new Date().toISOString() };
  const content = JSON.stringify(mine);
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      writeFileSync(file, content, { flag: 'wx', mode: 0o644 });
      claimedHere.add(file);
      return {
        file,
        release: () => {
          claimedHere.delete(file);
          try {
            if (readFileSync(file, 'utf8') === content) rmSync(file, { force: true });
          } catch {
            /* gone already */
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = readOrNull(file);
    if (text === null) continue; // removed meanwhile: try again
    const owner = parseOwner(text);
    if (!owner && attempt < 10) {
      // Being written by a process that created it a moment ago.
      sleepSync(20);
      continue;
    }
    if (owner && isOwnerAlive(owner)) {
      const port = readPostmaster(dataDir)?.port;
      throw new DataFolderInUseError(dataDir, owner, port ? `postgres://postgres:postgres@127.0.0.1:${port}/billing` : null);
    }
    // Left by a process that is gone: remove it, unless it changed meanwhile.
    if (readOrNull(file) === text) rmSync(file, { force: true });
  }
  throw new StartupError(`could not claim the data folder ${dataDir}: ${file} keeps changing`, `make sure one service process at a time starts on ${dataDir}`);
}

/** The data folder belongs to another live service process; `databaseUrl` reaches its Postgres when its port is known. */
export class DataFolderInUseError extends StartupError {
  constructor(
    dataDir: string,
    owner: OwnerRecord,
    readonly databaseUrl: string | null,
  ) {
    super(
      `the data folder ${dataDir} is in use by another running service process (pid ${owner.pid}, since ${owner.since})`,
      `stop that process first (kill ${owner.pid}), or give this one its own DATA_DIR` +
        (databaseUrl ? `, or share that process's database: DATABASE_URL=${databaseUrl}` : ''),
    );
  }
}

function parseOwner(text: string): OwnerRecord | null {
  try {
    const parsed = JSON.parse(text) as OwnerRecord;
    return Number.isInteger(parsed.pid) && parsed.pid > 0 ? parsed : null;
  } catch {
    return null;
  }
}

function isOwnerAlive(owner: OwnerRecord): boolean {
  // A record with our own pid that we did not write is from an earlier life (a container restarted with the same pid).
  if (owner.pid === process.pid) return false;
  if (!isAlive(owner.pid)) return false;
  const ticks = startTicks(owner.pid);
  return !(owner.startTicks && ticks && ticks !== owner.startTicks);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (start time since boot); null where there is no /proc. */
function startTicks(pid: number): string | null {
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

export interface PostmasterInfo {
  readonly pid: number;
  readonly port: number | null;
}

/** What postmaster.pid in the data folder says: the server's pid (line 1) and port (line 4). */
export function readPostmaster(dataDir: string): PostmasterInfo | null {
  const text = readOrNull(join(dataDir, 'postmaster.pid'));
  if (!text) return null;
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? { pid, port: Number.isInteger(port) ? port : null } : null;
}

/** Whether the pid names a live postgres process (not just any process that reuses the pid). */
export function isPostgresAlive(pid: number): boolean {
  if (!isAlive(pid)) return false;
  const name = readOrNull(`/proc/${pid}/comm`);
  return name === null ? existsSync('/proc') === false : name.trim().startsWith('postgres');
}

/**
 * A postmaster still running on the data folder whose service process is gone
 * (it was killed with -9): stopped with `pg_ctl stop -m fast` as the account
 * Postgres runs as, and signals if that does not work.
 */
export async function stopLeftoverPostmaster(dataDir: string, binaries: PostgresBinaries, account: PostgresAccount | null, log: Log): Promise<void> {
  const postmaster = readPostmaster(dataDir);
  if (!postmaster || !isPostgresAlive(postmaster.pid)) return;
  log('warn', {
    msg: 'a Postgres server is still running on this data folder, left by a service process that is gone: stopping it',
    pid: postmaster.pid,
    dataDir,
  });
  const stopped = await new Promise<boolean>((done) => {
    const child = spawn(binaries.pgCtl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '30'], { ...asAccount(account), cwd: '/', stdio: 'ignore' });
    child.once('error', () => done(false));
    child.once('exit', (code) => done(code === 0));
  });
  if (stopped && !isPostgresAlive(postmaster.pid)) return;
  for (const [signal, waitMs] of [
    ['SIGINT', 10_000],
    ['SIGQUIT', 10_000],
  ] as const) {
    try {
      process.kill(postmaster.pid, signal);
    } catch {
      /* gone */
    }
    if (await waitForExit(postmaster.pid, waitMs)) return;
  }
  throw new StartupError(
    `a Postgres server (pid ${postmaster.pid}) left running on ${dataDir} by an earlier process does not stop`,
    `stop it (kill ${postmaster.pid}) and start again`,
  );
}

export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  return !isAlive(pid);
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
