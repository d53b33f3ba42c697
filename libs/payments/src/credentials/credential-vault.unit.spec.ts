import { randomBytes, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { loadConfig, parsePaymentsEncryptionKeys, PaymentsEncryptionKeys } from '@billing/platform';
import { CredentialDecryptionError, CredentialVault, EncryptedCredentials } from './credential-vault';

const base64 = (bytes: Buffer) => bytes.toString('base64');
const oldKey = base64(randomBytes(32));
const newKey = base64(randomBytes(32));

function vault(value: string): CredentialVault {
  const paymentsEncryptionKeys: PaymentsEncryptionKeys = { keys: parsePaymentsEncryptionKeys(value, 'PAYMENTS_ENCRYPTION_KEY'), source: 'environment' };
  return new CredentialVault({ paymentsEncryptionKeys });
}

function tamper(encrypted: EncryptedCredentials, at: number): EncryptedCredentials {
  const blob = Buffer.from(encrypted.ciphertext, 'base64url');
  blob[at] ^= 0x01;
  return { ...encrypted, ciphertext: blob.toString('base64url') };
}

describe('CredentialVault', () => {
  const environmentId = randomUUID();
  const credentials = { apiKey: 'sk_live_abc', merchant: { id: 'm-1', region: 'eu' }, sandbox: false };

  it('decrypts what it encrypted: the key id of the first key, base64url of iv|tag|data, a fresh iv each time', () => {
    const subject = vault(`k1:${oldKey}`);
    const encrypted = subject.encrypt(environmentId, 'stripe', credentials);
    expect(encrypted.keyId).toBe('k1');
    expect(encrypted.ciphertext).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(encrypted.ciphertext, 'base64url').length).toBe(12 + 16 + JSON.stringify(credentials).length);
    expect(encrypted.ciphertext).not.toContain('sk_live');
    expect(subject.decrypt(environmentId, 'stripe', encrypted)).toEqual(credentials);
    expect(subject.encrypt(environmentId, 'stripe', credentials).ciphertext).not.toBe(encrypted.ciphertext);
  });

  it('does not decrypt in another environment or for another provider (associated data)', () => {
    const subject = vault(`k1:${oldKey}`);
    const encrypted = subject.encrypt(environmentId, 'stripe', credentials);
    expect(() => subject.decrypt(randomUUID(), 'stripe', encrypted)).toThrow(CredentialDecryptionError);
    expect(() => subject.decrypt(environmentId, 'adyen', encrypted)).toThrow('could not be authenticated with key "k1"');
    // No separator to forge: the environment and provider are a JSON array.
    const joined = subject.encrypt('a/b', 'c', credentials);
    expect(() => subject.decrypt('a', 'b/c', joined)).toThrow(CredentialDecryptionError);
  });

  it('refuses a tampered iv, tag or data, a truncated or malformed blob, and a wrong key under the same id', () => {
    const subject = vault(`k1:${oldKey}`);
    const encrypted = subject.encrypt(environmentId, 'stripe', credentials);
    for (const at of [0, 11, 12, 27, 28, 40]) {
      expect(() => subject.decrypt(environmentId, 'stripe', tamper(encrypted, at))).toThrow('could not be authenticated');
    }
    const blob = Buffer.from(encrypted.ciphertext, 'base64url');
    expect(() => subject.decrypt(environmentId, 'stripe', { keyId: 'k1', ciphertext: blob.subarray(0, 20).toString('base64url') })).toThrow('too short');
    expect(() => subject.decrypt(environmentId, 'stripe', { keyId: 'k1', ciphertext: blob.subarray(0, blob.length - 1).toString('base64url') })).toThrow(
      'could not be authenticated',
    );
    expect(() => subject.decrypt(environmentId, 'stripe', { keyId: 'k1', ciphertext: 'not base64url!' })).toThrow('malformed');
    expect(() => vault(`k1:${newKey}`).decrypt(environmentId, 'stripe', encrypted)).toThrow('could not be authenticated');
  });

  it('names a key it does not hold', () => {
    const encrypted = vault(`k1:${oldKey}`).encrypt(environmentId, 'stripe', credentials);
    expect(() => vault(`k2:${newKey}`).decrypt(environmentId, 'stripe', encrypted)).toThrow(
      'encrypted with key "k1", which PAYMENTS_ENCRYPTION_KEY does not hold',
    );
  });

  it('rotates: a new first key encrypts, the old one still decrypts, reencrypt moves a blob to the new key', () => {
    const before = vault(`k1:${oldKey}`);
    const old = before.encrypt(environmentId, 'stripe', credentials);
    const rotated = vault(`k2:${newKey}, k1:${oldKey}`);
    expect(rotated.currentKeyId).toBe('k2');
    expect(rotated.decrypt(environmentId, 'stripe', old)).toEqual(credentials);
    expect(rotated.needsReencryption(old)).toBe(true);
    const fresh = rotated.encrypt(environmentId, 'stripe', credentials);
    expect(fresh.keyId).toBe('k2');
    expect(() => before.decrypt(environmentId, 'stripe', fresh)).toThrow('does not hold');
    const moved = rotated.reencrypt(environmentId, 'stripe', old);
    expect(moved.keyId).toBe('k2');
    expect(rotated.needsReencryption(moved)).toBe(false);
    expect(rotated.reencrypt(environmentId, 'stripe', moved)).toBe(moved);
    expect(vault(`k2:${newKey}`).decrypt(environmentId, 'stripe', moved)).toEqual(credentials);
  });

  it('encrypts only JSON objects, and never quotes credentials in its errors', () => {
    const subject = vault(`k1:${oldKey}`);
    for (const value of [null, [1, 2], 'secret', new Date()]) {
      expect(() => subject.encrypt(environmentId, 'stripe', value as object)).toThrow('JSON object');
    }
    const circular: Record<string, unknown> = { apiKey: 'sk_live_circular' };
    circular.self = circular;
    expect(() => subject.encrypt(environmentId, 'stripe', circular)).toThrow(/^payment credentials must be serialisable as a JSON object$/);
    const encrypted = subject.encrypt(environmentId, 'stripe', credentials);
    try {
      subject.decrypt(environmentId, 'adyen', encrypted);
    } catch (error) {
      expect(String(error)).not.toContain('sk_live');
      expect(String(error)).not.toContain(oldKey);
    }
  });

  it('refuses to exist without keys (production without PAYMENTS_ENCRYPTION_KEY)', () => {
    const production = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'a-real-secret' });
    expect(production.paymentsEncryptionKeys).toEqual({ keys: [], source: 'missing' });
    expect(() => new CredentialVault(production)).toThrow('PAYMENTS_ENCRYPTION_KEY: required in production');
  });
});

describe('PAYMENTS_ENCRYPTION_KEY', () => {
  const key = base64(randomBytes(32));

  it('is a list of keyId:base64 entries, the first encrypting; base64url and spaces around entries are accepted', () => {
    const config = loadConfig({ PAYMENTS_ENCRYPTION_KEY: ` new:${key} , old_1:${randomBytes(32).toString('base64url')}` });
    expect(config.paymentsEncryptionKeys.source).toBe('environment');
    expect(config.paymentsEncryptionKeys.keys.map((k) => k.id)).toEqual(['new', 'old_1']);
    expect(config.paymentsEncryptionKeys.keys[0].key.equals(Buffer.from(key, 'base64'))).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 's', PAYMENTS_ENCRYPTION_KEY: `k:${key}` }).paymentsEncryptionKeys.keys).toHaveLength(1);
  });

  it.each([
    ['a key without an id', `${key}`, 'entry 1 of 1 has no key id'],
    ['a trailing comma', `k1:${key},`, 'entry 2 of 2 is empty'],
    ['an empty entry', `k1:${key},,k2:${key}`, 'entry 2 of 3 is empty'],
    ['an id with a space', `bad id:${key}`, 'entry 1 of 1: the key id must be 1 to 64 letters, digits, "_" or "-"'],
    ['an id with a dot', `k.1:${key}`, 'the key id must be'],
    ['an empty id', `:${key}`, 'the key id must be'],
    ['an id of 65 characters', `${'x'.repeat(65)}:${key}`, 'the key id must be'],
    ['an id used twice', `k1:${key},k1:${key}`, 'entry 2 of 2: the key id "k1" is used twice'],
    ['a 16-byte key', `k1:${base64(randomBytes(16))}`, 'entry 1 of 1 (key "k1"): the key must be the base64 of exactly 32 bytes'],
    ['a 33-byte key', `k1:${base64(randomBytes(33))}`, 'exactly 32 bytes'],
    ['a key that is not base64', 'k1:not*base64', 'exactly 32 bytes'],
    ['an empty key', 'k1:', 'exactly 32 bytes'],
  ])('refuses %s', (_case, value, message) => {
    expect(() => loadConfig({ PAYMENTS_ENCRYPTION_KEY: value })).toThrow(/^PAYMENTS_ENCRYPTION_KEY: entry \d+ of \d+/);
    expect(() => loadConfig({ PAYMENTS_ENCRYPTION_KEY: value })).toThrow(message);
  });

  it('never puts a key in an error message', () => {
    const short = base64(randomBytes(31));
    expect(() => loadConfig({ PAYMENTS_ENCRYPTION_KEY: `k1:${short}` })).toThrow(expect.objectContaining({ message: expect.not.stringContaining(short) }));
  });

  it('is refused in production only when the start happens (loadConfig itself answers "missing")', () => {
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 's' }).paymentsEncryptionKeys.source).toBe('missing');
  });

  it('outside production, unset: one random key per process, the same for every load', () => {
    const first = loadConfig({}).paymentsEncryptionKeys;
    const second = loadConfig({ NODE_ENV: 'test' }).paymentsEncryptionKeys;
    expect(first.source).toBe('development-process');
    expect(first.keys).toHaveLength(1);
    expect(first.keys[0].id).toMatch(/^process-[0-9a-f]{8}$/);
    expect(first.keys[0].key).toHaveLength(32);
    expect(second.keys[0]).toBe(first.keys[0]);
  });

  it('keeps the key bytes out of JSON and inspect output of the configuration', () => {
    const config = loadConfig({ PAYMENTS_ENCRYPTION_KEY: `k1:${key}` });
    const hex = config.paymentsEncryptionKeys.keys[0].key.toString('hex');
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 10 })]) {
      expect(shown).toContain('k1');
      expect(shown).not.toContain(key);
      expect(shown.replace(/[^0-9a-f]/g, '')).not.toContain(hex);
      expect(shown).not.toContain('Buffer');
    }
  });
});
