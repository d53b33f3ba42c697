import { isUuid, parseTimestamp, ValidationError } from '@billing/shared-kernel';
import { isValidText } from './hostile-input';

/**
 * Checks of one member of a page token. A token is opaque to clients but
 * arrives from them: everything decoded from it is checked to be exactly what
 * this service encodes before it reaches SQL, so a forged token (U+0000, a lone
 * surrogate, a wrong type, a huge number, another list's token) is always a
 * 422 at `/query/pageToken`, never a database error.
 */
export type TokenField<Value extends string | number> = (value: unknown) => value is Value;

export const tokenField = {
  /** A positive bigint column (a position, a sequence) as decimal text: numbers stay exact past 2^53. */
  bigint: ((value) => typeof value === 'string' && /^[1-9]\d{0,17}$/.test(value)) as TokenField<string>,
  /** A non-negative safe integer. */
  count: ((value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) as TokenField<number>,
  /** Exactly what `Date.prototype.toISOString()` writes, and a real instant (no 30 February). */
  instant: ((value) => typeof value === 'string' && parseTimestamp(value)?.toISOString() === value) as TokenField<string>,
  uuid: ((value) => typeof value === 'string' && isUuid(value)) as TokenField<string>,
  /** Text Postgres can store, of 1 to `maxLength` characters. */
  text: (maxLength: number): TokenField<string> =>
    ((value) => typeof value === 'string' && isValidText(value) && value.length > 0 && [...value].length <= maxLength) as TokenField<string>,
  oneOf: <Value extends string>(values: readonly Value[]): TokenField<Value> =>
    ((value) => typeof value === 'string' && (values as readonly string[]).includes(value)) as TokenField<Value>,
};

type KeyOf<Spec extends Record<string, TokenField<string | number>>> = { [Name in keyof Spec]: Spec[Name] extends TokenField<infer Value> ? Value : never };

/** Longer than any token this service issues (a few keys of at most a few hundred characters). */
const MAX_TOKEN_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface PageTokenCodec<Key> {
  /** The opaque token of a keyset page: base64url JSON of the last row's sort key. */
  encode(key: Key): string;
  /** The key of a token this codec encoded; anything else is a 422 at `/query/pageToken`. */
  decode(token: string): Key;
}

/** The one codec every list's page tokens go through: exactly the members of `spec`, each passing its check. */
export function pageTokenCodec<Spec extends Record<string, TokenField<string | number>>>(spec: Spec): PageTokenCodec<KeyOf<Spec>> {
  const names = Object.keys(spec);
  return {
    encode: (key) => Buffer.from(JSON.stringify(Object.fromEntries(names.map((name) => [name, key[name]])))).toString('base64url'),
    decode(token) {
      let decoded: unknown;
      try {
        if (token.length <= MAX_TOKEN_LENGTH && BASE64URL.test(token)) decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
      } catch {
        /* not JSON: a forgery */
      }
      if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) throw invalidPageToken();
      const members = decoded as Record<string, unknown>;
      if (
        Object.keys(members).length !== names.length ||
        !names.every((name) => Object.prototype.hasOwnProperty.call(members, name) && spec[name](members[name]))
      ) {
        throw invalidPageToken();
      }
      return members as KeyOf<Spec>;
    },
  };
}

/** Lists paged by the log position of each row's creating event (a bigint, as text). */
export const positionPageToken = pageTokenCodec({ position: tokenField.bigint });

export function invalidPageToken(detail = 'is not a page token returned by this service'): ValidationError {
  return ValidationError.at('/query/pageToken', detail);
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
 * The most JSON a page of any list holds, besides its first item (a page
 * always makes progress): a count limit alone let 100 large events make a
 * 43 MB answer.
 */
export const PAGE_MAX_BYTES = 4 * 1024 * 1024;

export interface KeysetPageOptions<Row, Item, Key> {
  readonly limit: number;
  readonly codec: PageTokenCodec<Key>;
  /** The sort key of a row: where the next page starts. */
  readonly key: (row: Row) => Key;
  readonly item: (row: Row) => Item;
  /** An upper bound of the item's JSON in bytes; by default its JSON measured. */
  readonly size?: (row: Row, item: Item) => number;
  readonly maxBytes?: number;
}

/**
 * The page of a list from its rows in keyset order (fetch `limit + 1`: the
 * extra row says whether more follow): at most `limit` items and at most
 * `maxBytes` of them after the first; `nextPageToken` continues after the last
 * item kept, so a page cut short by bytes loses nothing.
 */
export function keysetPage<Row, Item, Key>(rows: readonly Row[], options: KeysetPageOptions<Row, Item, Key>): Page<Item> {
  const { limit, codec, key, item, size = (_row: Row, view: Item) => Buffer.byteLength(JSON.stringify(view)), maxBytes = PAGE_MAX_BYTES } = options;
  const items: Item[] = [];
  let bytes = 0;
  for (const row of rows.slice(0, limit)) {
    const view = item(row);
    bytes += size(row, view);
    if (items.length > 0 && bytes > maxBytes) break;
    items.push(view);
  }
  return { items, nextPageToken: rows.length > items.length ? codec.encode(key(rows[items.length - 1])) : null };
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
