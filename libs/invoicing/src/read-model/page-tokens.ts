import { ValidationError } from '@billing/shared-kernel';
import { decodePageToken, encodePageToken } from '@billing/platform';
import { TAX_CODE_MAX_LENGTH } from '../domain';

/**
 * The keys of the invoicing lists' page tokens. A token is opaque to clients
 * but arrives from them, so everything decoded from it is checked to be
 * exactly what this service encodes before it reaches SQL: a forged token is
 * a 422 at `/query/pageToken`, never a database error.
 */

export interface InvoiceKey {
  /** `Date.prototype.toISOString()` of the row's created_at */
  readonly createdAt: string;
  readonly id: string;
}

export interface TaxCodeKey {
  readonly code: string;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** U+0000 (Postgres text cannot hold it) or a UTF-16 surrogate without its pair. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function encodeInvoiceKey(key: InvoiceKey): string {
  return encodePageToken({ createdAt: key.createdAt, id: key.id });
}

export function decodeInvoiceKey(token: string): InvoiceKey {
  const { createdAt, id } = decodePageToken<{ createdAt: string; id: string }>(token, ['createdAt', 'id']);
  if (!isIsoInstant(createdAt) || typeof id !== 'string' || !UUID.test(id)) throw invalidToken();
  return { createdAt, id };
}

export function encodeTaxCodeKey(key: TaxCodeKey): string {
  return encodePageToken({ code: key.code });
}

export function decodeTaxCodeKey(token: string): TaxCodeKey {
  const { code } = decodePageToken<{ code: string }>(token, ['code']);
  if (typeof code !== 'string' || UNSTORABLE.test(code)) throw invalidToken();
  const length = [...code].length;
  if (length < 1 || length > TAX_CODE_MAX_LENGTH) throw invalidToken();
  return { code };
}

/** Exactly the shape toISOString() writes, and a real instant (no 30 February, no month 13). */
function isIsoInstant(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return false;
  const time = Date.parse(value);
  return !Number.isNaN(time) && new Date(time).toISOString() === value;
}

function invalidToken(): ValidationError {
  return ValidationError.at('/query/pageToken', 'is not a page token returned by this service');
}
