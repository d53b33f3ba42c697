import { decryptSecret, encryptSecret } from './secret-box';

const key = Buffer.alloc(32, 1);
const iv = Buffer.alloc(12, 2);
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('secret box', () => {
  it('round-trips and has the v1.<iv>.<tag>.<ct> format', () => {
    const boxed = encryptSecret(secret, key, iv);
    expect(boxed).toMatch(/^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/);
    expect(boxed.split('.')[1]).toBe(iv.toString('base64'));
    expect(boxed).not.toContain(secret);
    expect(decryptSecret(boxed, key)).toBe(secret);
  });

  it('is deterministic for a given IV (the caller supplies the randomness)', () => {
    expect(encryptSecret(secret, key, iv)).toBe(encryptSecret(secret, key, iv));
    expect(encryptSecret(secret, key, Buffer.alloc(12, 3))).not.toBe(encryptSecret(secret, key, iv));
  });

  it('round-trips with associated data and fails with other associated data', () => {
    const boxed = encryptSecret(secret, key, iv, 'env-1/sub-1');
    expect(decryptSecret(boxed, key, 'env-1/sub-1')).toBe(secret);
    expect(() => decryptSecret(boxed, key, 'env-1/sub-2')).toThrow('could not be authenticated');
    expect(() => decryptSecret(boxed, key)).toThrow('could not be authenticated');
  });

  it('fails with another key', () => {
    expect(() => decryptSecret(encryptSecret(secret, key, iv), Buffer.alloc(32, 9))).toThrow('could not be authenticated');
  });

  it.each([1, 2, 3])('detects tampering with part %p', (index) => {
    const parts = encryptSecret(secret, key, iv).split('.');
    const bytes = Buffer.from(parts[index], 'base64');
    bytes[0] ^= 1;
    parts[index] = bytes.toString('base64');
    expect(() => decryptSecret(parts.join('.'), key)).toThrow('could not be authenticated');
  });

  it.each([
    'v2.a.b.c',
    'v1.a.b',
    'v1.***.b.c',
    `v1.${Buffer.alloc(8).toString('base64')}.${Buffer.alloc(16).toString('base64')}.`,
    `v1.${iv.toString('base64')}.${Buffer.alloc(8).toString('base64')}.AAAA`,
  ])('rejects malformed %p', (boxed) => {
    expect(() => decryptSecret(boxed, key)).toThrow('not a v1 secret box');
  });

  it('refuses wrong key and IV sizes', () => {
    expect(() => encryptSecret(secret, Buffer.alloc(16), iv)).toThrow(RangeError);
    expect(() => encryptSecret(secret, key, Buffer.alloc(16))).toThrow(RangeError);
    expect(() => decryptSecret('v1.a.b.c', Buffer.alloc(16))).toThrow(RangeError);
  });
});
