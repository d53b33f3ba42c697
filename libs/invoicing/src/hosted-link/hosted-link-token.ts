import { openToken, SealingKeys, sealingKeys, sealToken, uuidBytes, uuidOf } from '@billing/platform';

/**
 * The token of a hosted invoice page link (`/i/<token>`): the environment id, the invoice id and the invoice's link
 * version, sealed (platform's sealed-token.ts: deterministic AES-256-GCM-SIV) under keys derived from
 * HOSTED_LINK_SECRET, so the page finds its invoice without a lookup table and the token reveals nothing (no id, no
 * count, no date). Deterministic because an invoice has one link per link version, shown on every GET.
 * token = base64url(iv 12 ‖ ciphertext 36 ‖ tag 16): 86 characters.
 */
export interface HostedLinkTarget {
  readonly environmentId: string;
  readonly invoiceId: string;
  readonly linkVersion: number;
}

export type HostedLinkKeys = SealingKeys;

const PLAINTEXT_BYTES = 16 + 16 + 4;

export function hostedLinkKeys(secret: string): HostedLinkKeys {
  return sealingKeys(secret, 'billing hosted invoice links');
}

export function sealHostedLink(keys: HostedLinkKeys, target: HostedLinkTarget): string {
  return sealToken(keys, plaintextOf(target));
}

/** The target of a token this server sealed; null for anything else (never an error: every wrong token is alike). */
export function openHostedLink(keys: HostedLinkKeys, token: string): HostedLinkTarget | null {
  const plaintext = openToken(keys, token, PLAINTEXT_BYTES);
  if (plaintext === null) return null;
  return { environmentId: uuidOf(plaintext.subarray(0, 16)), invoiceId: uuidOf(plaintext.subarray(16, 32)), linkVersion: plaintext.readUInt32BE(32) };
}

function plaintextOf({ environmentId, invoiceId, linkVersion }: HostedLinkTarget): Buffer {
  if (!Number.isInteger(linkVersion) || linkVersion < 0 || linkVersion > 0xffffffff) throw new Error(`hosted link: bad link version ${linkVersion}`);
  const version = Buffer.alloc(4);
  version.writeUInt32BE(linkVersion);
  return Buffer.concat([uuidBytes(environmentId), uuidBytes(invoiceId), version]);
}
