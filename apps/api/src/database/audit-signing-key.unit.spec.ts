import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@billing/platform';
import { resolveAuditSigningKey } from './audit-signing-key';
import { StartupError } from './startup-error';

describe('the audit signing key', () => {
  let dataDir: string;
  const logged: Array<Record<string, unknown>> = [];
  const log = (_level: 'warn', fields: Record<string, unknown>) => void logged.push(fields);
  const pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  beforeEach(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'billing-audit-key-')), 'data');
    logged.length = 0;
  });
  afterEach(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  it('AUDIT_SIGNING_KEY: a PEM Ed25519 key, with \\n escapes too; never enumerable in the configuration', () => {
    const key = pem();
    const config = loadConfig({ AUDIT_SIGNING_KEY: key.replace(/\n/g, '\\n') });
    expect(config.auditSigningKey.source).toBe('environment');
    const signature = sign(null, Buffer.from('m'), config.auditSigningKey.privateKey!);
    expect(verify(null, Buffer.from('m'), loadConfig({ AUDIT_SIGNING_KEY: key }).auditSigningKey.privateKey!, signature)).toBe(true);
    expect(JSON.stringify(config)).not.toContain('BEGIN');
    expect(JSON.stringify(config.auditSigningKey)).toBe('{"source":"environment"}');
  });

  it('a malformed key or another algorithm stops the start, without showing the key', () => {
    expect(() => loadConfig({ AUDIT_SIGNING_KEY: 'not a key' })).toThrow('AUDIT_SIGNING_KEY: not a PEM private key');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => loadConfig({ AUDIT_SIGNING_KEY: rsa })).toThrow('must be an Ed25519 key, not rsa');
  });

  it('production without it: refused at startup', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 's' });
    expect(config.auditSigningKey).toMatchObject({ source: 'missing', privateKey: null });
    expect(() => resolveAuditSigningKey(config, log)).toThrow(StartupError);
    expect(() => resolveAuditSigningKey(config, log)).toThrow('AUDIT_SIGNING_KEY: required in production');
  });

  it('outside production, unset: made once under DATA_DIR (mode 0600) and the same on the next start; never logged', () => {
    const first = resolveAuditSigningKey(loadConfig({ DATA_DIR: dataDir }), log);
    const file = join(dataDir, 'audit-signing-key.pem');
    expect(first.auditSigningKey.source).toBe('development-file');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir)).toEqual(['audit-signing-key.pem']);
    const second = resolveAuditSigningKey(loadConfig({ DATA_DIR: dataDir }), log);
    const signature = sign(null, Buffer.from('head'), first.auditSigningKey.privateKey!);
    expect(verify(null, Buffer.from('head'), second.auditSigningKey.privateKey!, signature)).toBe(true);
    expect(JSON.stringify(logged)).not.toContain(readFileSync(file, 'utf8').split('\n')[1]);
    // With DATABASE_URL and no DATA_DIR folder: the process's key, nothing written.
    const elsewhere = join(dataDir, '..', 'absent');
    const processOnly = resolveAuditSigningKey(loadConfig({ DATA_DIR: elsewhere, DATABASE_URL: 'postgres://x@127.0.0.1/x' }), log);
    expect(processOnly.auditSigningKey.source).toBe('development-process');
    // A malformed development file stops the start with a hint.
    mkdirSync(join(dataDir, 'broken'));
    writeFileSync(join(dataDir, 'broken', 'audit-signing-key.pem'), 'garbage');
    expect(() => resolveAuditSigningKey(loadConfig({ DATA_DIR: join(dataDir, 'broken') }), log)).toThrow('the development audit signing key file is malformed');
  });
});
