import { v5 } from 'uuid';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The one uuid check (any version, any case). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * RFC 9562 name-based uuid (version 5, SHA-1, the `uuid` package's): the same
 * inputs always give the same id. The namespace goes in as its 16 bytes, so any
 * uuid serves (environment ids of any version, as isUuid accepts them; the
 * package's string form takes only versions 1 to 8 with the RFC variant), and
 * the name as its UTF-8 bytes.
 */
export function uuidV5(name: string, namespace: string): string {
  const bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (bytes.length !== 16) throw new RangeError('namespace must be a uuid');
  return v5(Buffer.from(name, 'utf8'), bytes);
}

/** The one detail for a member the request may not carry, wherever it is detected (edge or domain). */
export const UNKNOWN_PROPERTY = 'unknown property: not accepted here';
