import { secretHint } from './secret-hint';

/**
 * A payment method's token as events and read models keep it: sealed (an
 * AES-256-GCM secret box under a payments encryption key, see
 * PaymentTokenVault) with its hint beside it in clear, so that a view shows
 * the hint without the key: `pmt1.<key id>.<hint, base64url>.<secret box>`.
 * Events written before tokens were sealed hold the token itself; both forms
 * are read everywhere a token is (a clear one is what it always was).
 */
const PREFIX = 'pmt1';

export interface SealedPaymentToken {
  readonly keyId: string;
  readonly hint: string;
  /** encryptSecret's output (which has no other use of `.` than its own four parts). */
  readonly box: string;
}

export function formatSealedPaymentToken({ keyId, hint, box }: SealedPaymentToken): string {
  return [PREFIX, keyId, Buffer.from(hint, 'utf8').toString('base64url'), box].join('.');
}

/** The parts of a sealed token; null for a token kept in clear (events before tokens were sealed). */
export function parseSealedPaymentToken(stored: string): SealedPaymentToken | null {
  const [prefix, keyId, hint, ...box] = stored.split('.');
  if (prefix !== PREFIX || box.length !== 4 || !keyId) return null;
  return { keyId, hint: Buffer.from(hint, 'base64url').toString('utf8'), box: box.join('.') };
}

/** The one hint of a stored token, sealed or not: what responses, notifications and the events log show. */
export function paymentTokenHint(stored: string): string {
  return parseSealedPaymentToken(stored)?.hint ?? secretHint(stored);
}
