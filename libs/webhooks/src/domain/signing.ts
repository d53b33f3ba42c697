/**
 * Webhook signing. Every notification is signed twice with the same secret, so
 * receivers can use whichever they prefer:
 *
 * 1. The `signature` body member (the interface requires a field named
 *    `signature`, an SHA-256 signature made with the `signatureKey`).
 * 2. Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 *    `webhook-signature`), verifiable with any standardwebhooks library.
 *
 * The secret (`signatureKey`) has the Standard Webhooks form `whsec_<base64>`
 * (32 random bytes). For BOTH schemes the HMAC key is the base64-decoded part
 * after `whsec_`, not the string itself.
 *
 * Why the `signature` member is stripped textually rather than by
 * re-serialising: JSON re-serialisation is not byte-stable across languages
 * (number formatting, escaping, key order), so we guarantee instead that the
 * body is compact JSON whose LAST member is `"signature":"<64 hex>"`. The
 * signed text is therefore recoverable from the raw bytes with a string
 * operation, which any receiver can do exactly.
 *
 * Receiver recipe (README):
 *
 *   The body is `{"id":…,"type":…,"environmentId":…,"occurredAt":…,"version":…,
 *   "data":…,"timestamp":<unix seconds>,"signature":"<hex>"}`; `signature` is
 *   always the last member.
 *   1. Take the raw request body as received (bytes, before any JSON parsing).
 *   2. It ends with `,"signature":"<64 lowercase hex chars>"}`. Remove that
 *      suffix and append `}`; the result is the signed body.
 *   3. Parse the body to read `id` and `timestamp`.
 *   4. expected = hex(HMAC-SHA256(key, `${id}.${timestamp}.${signedBody}`)),
 *      where key = base64-decode(signatureKey without the `whsec_` prefix).
 *   5. Compare expected with the received `signature` in constant time, and
 *      reject timestamps more than 5 minutes away from your clock (replay).
 *
 *   Node.js:
 *     const m = /,"signature":"([0-9a-f]{64})"\}$/.exec(raw);
 *     const signed = raw.slice(0, m.index) + '}';
 *     const { id, timestamp } = JSON.parse(signed);
 *     const key = Buffer.from(signatureKey.slice('whsec_'.length), 'base64');
 *     const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${signed}`).digest();
 *     const ok = timingSafeEqual(expected, Buffer.from(m[1], 'hex'));
 *
 * Each delivery attempt is signed with its own `timestamp`, so the signature
 * differs between retries while `id` (= `webhook-id`) stays the event id and
 * serves as the receiver's idempotency key.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_KEY_PREFIX = 'whsec_';
export const SIGNATURE_KEY_BYTES = 32;
/** Standard Webhooks requires secrets between 24 and 64 bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
/** The replay window receivers should use; the same as the standardwebhooks libraries. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/** The notification as sent, minus `signature`. Member order here is the wire order. */
export interface NotificationPayload {
  readonly id: string;
  readonly type: string;
  readonly environmentId: string;
  readonly occurredAt: string;
  readonly version: string;
  readonly data: unknown;
  /** Integer unix seconds of this delivery attempt. */
  readonly timestamp: number;
}

export interface SignedNotification {
  /** The complete JSON body to POST, `signature` included as its last member. */
  readonly body: string;
  readonly signature: string;
}

export type StandardWebhookHeaders = Readonly<{
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}>;

const SIGNATURE_SUFFIX = /,"signature":"([0-9a-f]{64})"\}$/;

/** Pure: the caller supplies the random bytes (32 recommended). */
export function generateSignatureKey(randomBytes: Buffer): string {
  if (randomBytes.length < MIN_KEY_BYTES || randomBytes.length > MAX_KEY_BYTES) {
    throw new RangeError(`a signature key needs ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} random bytes`);
  }
  return SIGNATURE_KEY_PREFIX + randomBytes.toString('base64');
}

/** The HMAC key bytes of a `whsec_<base64>` secret. */
export function decodeSignatureKey(signatureKey: string): Buffer {
  const encoded = signatureKey.startsWith(SIGNATURE_KEY_PREFIX) ? signatureKey.slice(SIGNATURE_KEY_PREFIX.length) : '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new RangeError('a signature key has the form whsec_<base64>');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new RangeError(`a signature key decodes to ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`);
  }
  return key;
}

function hmac(key: Buffer, id: string, timestamp: number | string, body: string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
}

export function signNotification(payload: NotificationPayload, signatureKey: string): SignedNotification {
  if (!Number.isSafeInteger(payload.timestamp) || payload.timestamp < 0) {
    throw new RangeError('timestamp must be integer unix seconds');
  }
  // Rebuilt member by member: fixes the order and drops anything else the caller passed.
  const { id, type, environmentId, occurredAt, version, data, timestamp } = payload;
  const signedBody = JSON.stringify({ id, type, environmentId, occurredAt, version, data, timestamp });
  const signature = hmac(decodeSignatureKey(signatureKey), id, timestamp, signedBody).toString('hex');
  // Textual append (not a second JSON.stringify) so the receiver's strip is exactly the inverse.
  return { body: `${signedBody.slice(0, -1)},"signature":"${signature}"}`, signature };
}

export interface VerifyOptions {
  /** When given, a timestamp further than the tolerance from now fails verification. */
  readonly nowSeconds?: number;
  readonly toleranceSeconds?: number;
}

/** Verifies the `signature` member exactly as a receiver would (the recipe above). */
export function verifyNotificationSignature(rawBody: string, signatureKey: string, options: VerifyOptions = {}): boolean {
  const match = SIGNATURE_SUFFIX.exec(rawBody);
  if (!match) return false;
  const signedBody = `${rawBody.slice(0, match.index)}}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(signedBody);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null) return false;
  const { id, timestamp } = parsed as { id?: unknown; timestamp?: unknown };
  if (typeof id !== 'string' || !Number.isSafeInteger(timestamp)) return false;
  if (options.nowSeconds !== undefined) {
    const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
    if (Math.abs(options.nowSeconds - (timestamp as number)) > tolerance) return false;
  }
  const expected = hmac(decodeSignatureKey(signatureKey), id, timestamp as number, signedBody);
  return timingSafeEqual(expected, Buffer.from(match[1], 'hex'));
}

/** Standard Webhooks headers over the exact body that is POSTed (the one including `signature`). */
export function standardWebhookHeaders(id: string, timestampSeconds: number, body: string, signatureKey: string): StandardWebhookHeaders {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError('timestamp must be integer unix seconds');
  }
  const signature = hmac(decodeSignatureKey(signatureKey), id, timestampSeconds, body).toString('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
