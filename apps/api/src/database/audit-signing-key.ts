import { generateKeyPairSync } from 'node:crypto';
import { join, resolve } from 'node:path';
import { AppConfig, AUDIT_SIGNING_KEY_REQUIRED, auditKey, parseAuditSigningKey } from '@billing/platform';
import { isDirectory, readOrCreateKeyFile } from './payments-encryption-key';
import { StartupError } from './startup-error';

type Log = (level: 'warn', fields: Record<string, unknown>) => void;

export const DEVELOPMENT_AUDIT_KEY_FILE = 'audit-signing-key.pem';

/**
 * The key `npm start` signs audit heads with: AUDIT_SIGNING_KEY when set.
 * Unset in production: the start is refused (a head signed by a key nobody
 * keeps proves nothing). Unset otherwise: the PKCS#8 PEM Ed25519 key kept in
 * `<DATA_DIR>/audit-signing-key.pem`, made on the first start (like the
 * development payments key), so heads stay verifiable across restarts; with
 * DATABASE_URL and no DATA_DIR folder, loadConfig's per-process key, with a
 * warning. The key is never logged.
 */
export function resolveAuditSigningKey(config: AppConfig, log: Log): AppConfig {
  const configured = config.auditSigningKey;
  if (configured.source === 'environment' || configured.source === 'development-file') return config;
  if (config.isProduction || configured.source === 'missing') {
    throw new StartupError(
      AUDIT_SIGNING_KEY_REQUIRED,
      'set AUDIT_SIGNING_KEY to a PEM Ed25519 private key (openssl genpkey -algorithm ed25519), keep it, and give auditors its public key (GET /audit/public-key)',
    );
  }
  const dataDir = resolve(config.dataDir);
  if (config.databaseUrl && !isDirectory(dataDir)) {
    log('warn', { msg: 'AUDIT_SIGNING_KEY is not set and DATA_DIR is not a folder: audit heads are signed with a key of this process, lost when it exits' });
    return config;
  }
  const file = join(dataDir, DEVELOPMENT_AUDIT_KEY_FILE);
  const { entry, created } = readOrCreateKeyFile(file, () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  let privateKey;
  try {
    privateKey = parseAuditSigningKey(entry, file);
  } catch (error) {
    throw new StartupError(
      `the development audit signing key file is malformed: ${(error as Error).message}`,
      `set AUDIT_SIGNING_KEY, or delete ${file} to make a new key`,
    );
  }
  log('warn', {
    msg: created
      ? 'AUDIT_SIGNING_KEY is not set: made a development key for signing audit heads (set AUDIT_SIGNING_KEY in production)'
      : 'AUDIT_SIGNING_KEY is not set: audit heads are signed with the development key (set AUDIT_SIGNING_KEY in production)',
    file,
  });
  return { ...config, auditSigningKey: auditKey(privateKey, 'development-file') };
}
