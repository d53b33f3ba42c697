import { ValidationError } from '@billing/shared-kernel';

/** Opaque keyset page tokens: base64url JSON of the last row's sort key. */
export function encodePageToken(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodePageToken<Key extends Record<string, string | number>>(token: string, fields: readonly (keyof Key)[]): Key {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Key;
    if (decoded && typeof decoded === 'object' && fields.every((field) => field in decoded)) return decoded;
  } catch {
    /* fall through to the validation error */
  }
  throw ValidationError.at('/query/pageToken', 'is not a page token returned by this service');
}

export function parseLimit(value: unknown, fallback = 20, max = 100): number {
  if (value === undefined || value === '') return fallback;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw ValidationError.at('/query/limit', `must be an integer from 1 to ${max}`);
  }
  return limit;
}

/** A page of a list endpoint: `nextPageToken` is null on the last page. */
export interface Page<Item> {
  readonly items: Item[];
  readonly nextPageToken: string | null;
}

/**
 * Query parameters of list endpoints: only the named ones are accepted, each at
 * most once; a failure is a 422 pointing at `/query/<name>`.
 */
export function readQuery<Name extends string>(query: Record<string, unknown> | undefined, allowed: readonly Name[]): Partial<Record<Name, string>> {
  const result: Partial<Record<Name, string>> = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    if (!(allowed as readonly string[]).includes(name)) throw ValidationError.at(`/query/${name}`, 'unknown query parameter');
    if (typeof value !== 'string') throw ValidationError.at(`/query/${name}`, 'must be given once');
    result[name as Name] = value;
  }
  return result;
}

/** An enumerated query parameter: absent, or one of `values` (else a 422 at `/query/<name>`). */
export function oneOf<T extends string>(name: string, value: string | undefined, values: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) throw ValidationError.at(`/query/${name}`, `must be one of ${values.join(', ')}`);
  return value as T;
}
