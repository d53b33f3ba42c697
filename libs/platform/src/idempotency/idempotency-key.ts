import { createHash } from 'node:crypto';
import { HttpProblem } from '../problems/problem';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_KEY_POINTER = '/headers/idempotency-key';
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** Who a key belongs to: the same key from another environment or caller is another key. */
export interface IdempotencyScope {
  readonly environmentId: string;
  readonly subject: string;
  readonly key: string;
}

/**
 * The key of a write, or undefined when the request has none. 1–255
 * printable ASCII characters; anything else (empty, too long, control or
 * non-ASCII characters, the header sent twice) is a 400. Takes every value
 * the header was sent with (Node joins repeated headers into one string).
 */
export function parseIdempotencyKey(values: readonly string[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.length === 1 && PRINTABLE_ASCII.test(values[0])) return values[0];
  const detail = values.length > 1 ? 'must be sent once' : 'must be 1 to 255 printable ASCII characters';
  throw new HttpProblem(400, 'invalid-idempotency-key', `The Idempotency-Key header ${detail}.`, [{ pointer: IDEMPOTENCY_KEY_POINTER, detail }]);
}

/**
 * What makes two requests "the same request": method, path with query, and
 * the body as JSON values (member order and whitespace do not matter; a
 * missing body is null).
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method, url, canonical(body ?? null)]))
    .digest('base64url');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
