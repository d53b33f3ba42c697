import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Sealed tokens for links a browser opens without a login (the hosted invoice page's, the analytics page's): a
 * fixed-length plaintext sealed under keys derived from a server secret, so whoever serves the link finds what it
 * names without a lookup table and the token reveals nothing.
 *
 * Sealing is deterministic: AES-256-GCM with a synthetic IV, the first 96 bits of an HMAC-SHA-256 over the plaintext
 * under a second key (the SIV construction: equal plaintexts give equal tokens, different plaintexts different IVs).
 * Opening checks the GCM tag (128 bits) and that the IV is the HMAC of what it decrypted to, so a token is either one
 * this server sealed under these keys or nothing. token = base64url(iv 12 ‖ ciphertext ‖ tag 16).
 */
export interface SealingKeys {
  readonly encryption: Buffer;
  readonly iv: Buffer;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Two independent keys from the one secret (HKDF-SHA-256 with distinct labels); `purpose` (the salt) separates link kinds. */
export function sealingKeys(secret: string, purpose: string): SealingKeys {
  const derive = (label: string) => Buffer.from(hkdfSync('sha256', secret, purpose, label, 32));
  return { encryption: derive('aes-256-gcm'), iv: derive('synthetic-iv') };
}

export function sealToken(keys: SealingKeys, plaintext: Buffer): string {
  const iv = syntheticIv(keys, plaintext);
  const cipher = createCipheriv('aes-256-gcm', keys.encryption, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

/** The plaintext (of `plaintextBytes`) of a token these keys sealed; null for anything else (every wrong token is alike). */
export function openToken(keys: SealingKeys, token: string, plaintextBytes: number): Buffer | null {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  const tokenBytes = IV_BYTES + plaintextBytes + TAG_BYTES;
  // Only the canonical spelling: one plaintext, one token.
  if (bytes.length !== tokenBytes || bytes.toString('base64url') !== token) return null;
  const iv = bytes.subarray(0, IV_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', keys.encryption, iv);
  decipher.setAuthTag(bytes.subarray(tokenBytes - TAG_BYTES));
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, tokenBytes - TAG_BYTES)), decipher.final()]);
  } catch {
    return null;
  }
  return timingSafeEqual(iv, syntheticIv(keys, plaintext)) ? plaintext : null;
}

/** A lowercase uuid's 16 bytes; throws for anything else (a sealed id is always one the server chose). */
export function uuidBytes(id: string): Buffer {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) throw new Error(`sealed token: ${id} is not a lowercase uuid`);
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

export function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function syntheticIv(keys: SealingKeys, plaintext: Buffer): Buffer {
  return createHmac('sha256', keys.iv).update(plaintext).digest().subarray(0, IV_BYTES);
}
