/**
 * Encryption at rest for signature keys: events are immutable and widely
 * replicated (projections, backups), so the secret enters them only as
 * AES-256-GCM ciphertext under a server key held outside the database.
 *
 * Format: `v1.<iv b64>.<tag b64>.<ciphertext b64>` (standard base64, which has
 * no `.`). The version prefix leaves room for key rotation or another cipher.
 * The IV is passed in (12 random bytes per encryption; never reuse one with
 * the same key) so this module stays free of randomness. The optional
 * associated data (e.g. `${environmentId}/${subscriptionId}`) binds a
 * ciphertext to its owner, so copying it into another subscription's stream
 * makes decryption fail instead of handing out the secret.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function encryptSecret(plaintext: string, key: Buffer, iv: Buffer, associatedData?: string): string {
  if (key.length !== KEY_BYTES) throw new RangeError('AES-256-GCM needs a 32-byte key');
  if (iv.length !== IV_BYTES) throw new RangeError('AES-256-GCM needs a 12-byte IV');
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64'))).join('.');
}

/** Throws on a malformed value, a wrong key or associated data, or tampering. */
export function decryptSecret(boxed: string, key: Buffer, associatedData?: string): string {
  if (key.length !== KEY_BYTES) throw new RangeError('AES-256-GCM needs a 32-byte key');
  const parts = boxed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION || !parts.slice(1).every((p) => BASE64.test(p))) {
    throw new Error('not a v1 secret box');
  }
  const [iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64'));
  // An explicit tag length stops a truncated tag from weakening the authentication.
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('not a v1 secret box');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('secret box could not be authenticated');
  }
}
