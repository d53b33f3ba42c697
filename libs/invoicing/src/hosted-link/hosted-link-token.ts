import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * The token of a hosted invoice page link (`/i/<token>`): the environment id, the invoice id and the invoice's link
 * version, sealed under keys derived from HOSTED_LINK_SECRET, so the page finds its invoice without a lookup table
 * and the token reveals nothing (no id, no count, no date).
 *
 * Sealing is deterministic (an invoice has one link per link version, shown on every GET): AES-256-GCM with a
 * synthetic IV, the first 96 bits of an HMAC-SHA-256 over the plaintext under a second key (the SIV construction:
 * equal plaintexts give equal tokens, different plaintexts different IVs). Opening checks the GCM tag (128 bits) and
 * that the IV is the HMAC of what it decrypted to, so a token is either one this server sealed or nothing.
 * token = base64url(iv 12 ‖ ciphertext 36 ‖ tag 16): 86 characters.
 */
export interface HostedLinkTarget {
  readonly environmentId: string;
  readonly invoiceId: string;
  readonly linkVersion: number;
}

export interface HostedLinkKeys {
  readonly encryption: Buffer;
  readonly iv: Buffer;
}

const PLAINTEXT_BYTES = 16 + 16 + 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const TOKEN_BYTES = IV_BYTES + PLAINTEXT_BYTES + TAG_BYTES;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Two independent keys from the one secret (HKDF-SHA-256 with distinct labels). */
export function hostedLinkKeys(secret: string): HostedLinkKeys {
  const derive = (label: string) => Buffer.from(hkdfSync('sha256', secret, 'billing hosted invoice links', label, 32));
  return { encryption: derive('aes-256-gcm'), iv: derive('synthetic-iv') };
}

export function sealHostedLink(keys: HostedLinkKeys, target: HostedLinkTarget): string {
  const plaintext = plaintextOf(target);
  const iv = syntheticIv(keys, plaintext);
  const cipher = createCipheriv('aes-256-gcm', keys.encryption, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

/** The target of a token this server sealed; null for anything else (never an error: every wrong token is alike). */
export function openHostedLink(keys: HostedLinkKeys, token: string): HostedLinkTarget | null {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  // Only the canonical spelling: one link, one token.
  if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return null;
  const iv = bytes.subarray(0, IV_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', keys.encryption, iv);
  decipher.setAuthTag(bytes.subarray(TOKEN_BYTES - TAG_BYTES));
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, TOKEN_BYTES - TAG_BYTES)), decipher.final()]);
  } catch {
    return null;
  }
  if (!timingSafeEqual(iv, syntheticIv(keys, plaintext))) return null;
  return { environmentId: uuidOf(plaintext.subarray(0, 16)), invoiceId: uuidOf(plaintext.subarray(16, 32)), linkVersion: plaintext.readUInt32BE(32) };
}

function plaintextOf({ environmentId, invoiceId, linkVersion }: HostedLinkTarget): Buffer {
  for (const id of [environmentId, invoiceId]) if (!UUID.test(id)) throw new Error(`hosted link: ${id} is not a lowercase uuid`);
  if (!Number.isInteger(linkVersion) || linkVersion < 0 || linkVersion > 0xffffffff) throw new Error(`hosted link: bad link version ${linkVersion}`);
  const version = Buffer.alloc(4);
  version.writeUInt32BE(linkVersion);
  return Buffer.concat([uuidBytes(environmentId), uuidBytes(invoiceId), version]);
}

function syntheticIv(keys: HostedLinkKeys, plaintext: Buffer): Buffer {
  return createHmac('sha256', keys.iv).update(plaintext).digest().subarray(0, IV_BYTES);
}

function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
