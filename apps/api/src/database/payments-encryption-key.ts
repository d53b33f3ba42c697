import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppConfig, parsePaymentsEncryptionKeys, PAYMENTS_ENCRYPTION_KEY_REQUIRED } from '@billing/platform';
import { StartupError } from './startup-error';

type Log = (level: 'warn', fields: Record<string, unknown>) => void;

export const DEVELOPMENT_PAYMENTS_KEY_FILE = 'payments-encryption.key';

/**
 * The payment-credential keys `npm start` runs with. PAYMENTS_ENCRYPTION_KEY
 * when set. Unset in production: the start is refused. Unset otherwise: the
 * key kept in `<DATA_DIR>/payments-encryption.key`, made on the first start,
 * so credentials stored in a development database stay readable across
 * restarts (loadConfig's per-process key would not): always with the embedded
 * Postgres (whose data lives in DATA_DIR too), and with DATABASE_URL when
 * DATA_DIR is an existing folder; otherwise loadConfig's per-process key
 * stays, with a warning. The file holds one `keyId:base64` entry, which can
 * later be appended to PAYMENTS_ENCRYPTION_KEY to keep reading what it
 * encrypted. Neither key nor file content is ever logged.
 */
export function resolvePaymentsEncryptionKeys(config: AppConfig, log: Log): AppConfig {
  const configured = config.paymentsEncryptionKeys;
  if (configured.source === 'environment' || configured.source === 'development-file') return config;
  if (config.isProduction || configured.source === 'missing') {
    throw new StartupError(
      PAYMENTS_ENCRYPTION_KEY_REQUIRED,
      'set PAYMENTS_ENCRYPTION_KEY, e.g. PAYMENTS_ENCRYPTION_KEY="k1:$(openssl rand -base64 32)", and keep it: payment credentials stored with it are unreadable without it',
    );
  }
  const dataDir = resolve(config.dataDir);
  if (config.databaseUrl && !isDirectory(dataDir)) {
    // DATABASE_URL without a data folder (a test's service process, a throwaway database): nothing is written.
    log('warn', {
      msg: 'PAYMENTS_ENCRYPTION_KEY is not set and DATA_DIR is not a folder: payment credentials are encrypted with a key of this process, unreadable once it exits (set PAYMENTS_ENCRYPTION_KEY, or create DATA_DIR to keep a development key there)',
      keyId: configured.keys[0]?.id,
      dataDir,
    });
    return config;
  }
  const file = join(dataDir, DEVELOPMENT_PAYMENTS_KEY_FILE);
  const { entry, created } = readOrCreateKeyFile(file);
  const keys = parseKeyFile(entry, file);
  log('warn', {
    msg: created
      ? 'PAYMENTS_ENCRYPTION_KEY is not set: made a development key for payment credentials (set PAYMENTS_ENCRYPTION_KEY in production)'
      : 'PAYMENTS_ENCRYPTION_KEY is not set: payment credentials are encrypted with the development key (set PAYMENTS_ENCRYPTION_KEY in production)',
    keyId: keys[0].id,
    file,
  });
  if (!created && (statSync(file).mode & 0o077) !== 0) {
    log('warn', { msg: 'the development payments key file can be read by other accounts: chmod 600 it', file });
  }
  return { ...config, paymentsEncryptionKeys: { keys, source: 'development-file' } };
}

/**
 * Reads the key file, or makes it: written in full (mode 0600) under a
 * temporary name, then hard-linked to its name, which fails if another
 * process made it meanwhile; that one's key is then read. A reader never
 * sees a half-written file, and two first starts agree on one key.
 */
export function readOrCreateKeyFile(file: string, make: () => string = newPaymentsKeyEntry): { entry: string; created: boolean } {
  const existing = readOrNull(file);
  if (existing !== null) return { entry: existing, created: false };
  mkdirSync(resolve(file, '..'), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const entry = make();
  const descriptor = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(descriptor, entry);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  try {
    linkSync(temporary, file);
    return { entry, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { entry: readFileSync(file, 'utf8'), created: false };
  } finally {
    rmSync(temporary, { force: true });
  }
}

function newPaymentsKeyEntry(): string {
  return `development-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}\n`;
}

function parseKeyFile(entry: string, file: string) {
  try {
    const keys = parsePaymentsEncryptionKeys(entry.trim(), file);
    if (keys.length !== 1) throw new Error(`${file}: holds ${keys.length} keys, expected one`);
    return keys;
  } catch (error) {
    throw new StartupError(
      `the development payments key file is malformed: ${(error as Error).message}`,
      `set PAYMENTS_ENCRYPTION_KEY, or delete ${file} to make a new key (payment credentials encrypted with the old one become unreadable)`,
    );
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
