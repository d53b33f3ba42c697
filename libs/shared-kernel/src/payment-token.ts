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
/** A token a read model keeps as its hint alone: one kept in clear by an event from before tokens were sealed. */
const REDACTED = 'pmt0';

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

/** The one hint of a stored token, sealed, redacted or in clear: what responses, notifications and the events log show. */
export function paymentTokenHint(stored: string): string {
  return parseSealedPaymentToken(stored)?.hint ?? redactedHint(stored) ?? secretHint(stored);
}

/** Whether the stored token is a read model's redaction (nothing to charge with: the token is in the stream's events). */
export function isRedactedPaymentToken(stored: string): boolean {
  return redactedHint(stored) !== null;
}

/**
 * A payment method as a read model keeps it: a sealed token as it is, one in
 * clear (folded from an event from before tokens were sealed) redacted to its
 * hint, which is all a view shows. Commands charge with the stream's own
 * events, never a read model's copy.
 */
export function readModelPaymentMethod<M extends { readonly token: string }>(method: M | null | undefined): M | null | undefined {
  if (!method || parseSealedPaymentToken(method.token) || isRedactedPaymentToken(method.token)) return method;
  return { ...method, token: [REDACTED, Buffer.from(secretHint(method.token), 'utf8').toString('base64url')].join('.') };
}

function redactedHint(stored: string): string | null {
  const [prefix, hint, ...rest] = stored.split('.');
  return prefix === REDACTED && hint !== undefined && rest.length === 0 ? Buffer.from(hint, 'base64url').toString('utf8') : null;
}
