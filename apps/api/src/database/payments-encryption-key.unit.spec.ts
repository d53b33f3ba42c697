import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@billing/platform';
import { readOrCreateKeyFile, resolvePaymentsEncryptionKeys } from './payments-encryption-key';
import { StartupError } from './startup-error';

describe('the payments encryption key of npm start', () => {
  let dataDir: string;
  const logged: Array<Record<string, unknown>> = [];
  const log = (_level: 'warn', fields: Record<string, unknown>) => void logged.push(fields);

  beforeEach(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'billing-payments-key-')), 'data');
    logged.length = 0;
  });
  afterEach(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  it('outside production, unset: made once under DATA_DIR (mode 0600, nothing else left there) and the same on the next start', () => {
    const first = resolvePaymentsEncryptionKeys(loadConfig({ DATA_DIR: dataDir }), log);
    const file = join(dataDir, 'payments-encryption.key');
    expect(first.paymentsEncryptionKeys.source).toBe('development-file');
    expect(first.paymentsEncryptionKeys.keys).toHaveLength(1);
    expect(first.paymentsEncryptionKeys.keys[0].id).toMatch(/^development-[0-9a-f]{8}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).toEqual(['payments-encryption.key']);
    const second = resolvePaymentsEncryptionKeys(loadConfig({ DATA_DIR: dataDir }), log);
    expect(second.paymentsEncryptionKeys.keys[0].id).toBe(first.paymentsEncryptionKeys.keys[0].id);
    expect(second.paymentsEncryptionKeys.keys[0].key.equals(first.paymentsEncryptionKeys.keys[0].key)).toBe(true);
    // The file is a valid PAYMENTS_ENCRYPTION_KEY entry, to append there later.
    const entry = readFileSync(file, 'utf8').trim();
    expect(loadConfig({ PAYMENTS_ENCRYPTION_KEY: entry }).paymentsEncryptionKeys.keys[0].key.equals(first.paymentsEncryptionKeys.keys[0].key)).toBe(true);
    // Logged: where and which id, never the key.
    expect(logged.map((fields) => fields.file)).toEqual([file, file]);
    expect(JSON.stringify(logged)).not.toContain(entry.split(':')[1]);
  });

  it('with DATABASE_URL: the file when DATA_DIR is a folder, else the per-process key and nothing written', () => {
    const databaseUrl = 'postgres://postgres@127.0.0.1:5432/x';
    const processKey = loadConfig({}).paymentsEncryptionKeys.keys[0];
    const without = resolvePaymentsEncryptionKeys(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl }), log);
    expect(without.paymentsEncryptionKeys).toEqual({ keys: [processKey], source: 'development-process' });
    expect(() => statSync(dataDir)).toThrow();
    expect(logged[0]).toMatchObject({ keyId: processKey.id, dataDir });
    mkdirSync(dataDir);
    const withFolder = resolvePaymentsEncryptionKeys(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl }), log);
    expect(withFolder.paymentsEncryptionKeys.source).toBe('development-file');
    expect(readdirSync(dataDir)).toEqual(['payments-encryption.key']);
  });

  it('an existing file is read, never replaced', () => {
    const file = join(dataDir, 'payments-encryption.key');
    const made = readOrCreateKeyFile(file);
    expect(made.created).toBe(true);
    expect(readOrCreateKeyFile(file)).toEqual({ entry: made.entry, created: false });
  });

  it('PAYMENTS_ENCRYPTION_KEY set: used as it is, no file', () => {
    const config = loadConfig({ DATA_DIR: dataDir, PAYMENTS_ENCRYPTION_KEY: `k1:${Buffer.alloc(32, 7).toString('base64')}` });
    expect(resolvePaymentsEncryptionKeys(config, log)).toBe(config);
    expect(() => statSync(dataDir)).toThrow();
  });

  it('production without it: the start is refused, with a hint, and nothing is written', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 's', DATA_DIR: dataDir });
    expect(() => resolvePaymentsEncryptionKeys(config, log)).toThrow(StartupError);
    expect(() => resolvePaymentsEncryptionKeys(config, log)).toThrow('PAYMENTS_ENCRYPTION_KEY: required in production');
    expect(() => statSync(dataDir)).toThrow();
  });

  it('a malformed key file stops the start and says what to do', () => {
    const file = join(dataDir, 'payments-encryption.key');
    readOrCreateKeyFile(file);
    writeFileSync(file, 'development-1:short\n');
    let failure: unknown;
    try {
      resolvePaymentsEncryptionKeys(loadConfig({ DATA_DIR: dataDir }), log);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StartupError);
    expect((failure as StartupError).message).toContain('the development payments key file is malformed');
    expect((failure as StartupError).hint).toContain(`delete ${file}`);
  });
});
