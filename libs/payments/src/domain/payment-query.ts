import { FieldError, MAX_AMOUNT, ValidationError, isSupportedCurrency, isUuid, parseTimestamp } from '@billing/shared-kernel';
import { PAYMENT_STATUSES, PaymentStatus } from './payment';
import { KNOWN_PROVIDERS, KnownProvider, isKnownProvider } from './provider';

export { parseTimestamp };

/**
 * The query of GET /payments, parsed and typed: `filter` (repeatable, each
 * `field op value`, combined with and), `orderBy`, `limit`, `pageToken`.
 * Which query parameters are allowed at all is the HTTP layer's concern.
 *
 * Every problem is a 422 at `/query/filter/<i>` (i: 0-based position among
 * the filters, 0 for a single one), `/query/orderBy`, `/query/limit` or
 * `/query/pageToken`; all problems of a request are reported together.
 *
 * Syntax: `field`, one space, `op`, one space, then the value: everything
 * after the second space, untrimmed (no value of a filterable field contains
 * a space, so a stray space is reported as a bad value rather than ignored).
 * Field and operator names are case-sensitive, as documented. A `+` in a
 * query string means a space, so an offset like `+02:00` must be sent as
 * `%2B02:00`; the createdAt detail says so.
 */

export const FILTER_FIELDS = ['status', 'invoiceId', 'customerId', 'provider', 'currency', 'amount', 'createdAt'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];
export const FILTER_OPS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
export type EqualityOp = 'eq' | 'ne';

/** Ordering only makes sense for amounts and times; the rest are identities or enumerations. */
export const OPS_BY_FIELD: Readonly<Record<FilterField, readonly FilterOp[]>> = {
  status: ['eq', 'ne'],
  invoiceId: ['eq', 'ne'],
  customerId: ['eq', 'ne'],
  provider: ['eq', 'ne'],
  currency: ['eq', 'ne'],
  amount: FILTER_OPS,
  createdAt: FILTER_OPS,
};

export type PaymentFilter =
  | { readonly field: 'status'; readonly op: EqualityOp; readonly value: PaymentStatus }
  /** lowercase uuid */
  | { readonly field: 'invoiceId' | 'customerId'; readonly op: EqualityOp; readonly value: string }
  | { readonly field: 'provider'; readonly op: EqualityOp; readonly value: KnownProvider }
  /** uppercase ISO 4217, as payments store it */
  | { readonly field: 'currency'; readonly op: EqualityOp; readonly value: string }
  /** minor units, a safe integer */
  | { readonly field: 'amount'; readonly op: FilterOp; readonly value: number }
  | { readonly field: 'createdAt'; readonly op: FilterOp; readonly value: Date };

export type OrderField = 'id' | 'createdAt' | 'amount';

export interface PaymentQuery {
  readonly filters: readonly PaymentFilter[];
  readonly orderBy: { readonly field: OrderField; readonly descending: boolean };
  readonly limit: number;
  /** Opaque; decoded (and refused if foreign) by the read model. */
  readonly pageToken?: string;
}

/** Keeps one request's SQL bounded; 20 conditions is far beyond any useful listing. */
export const MAX_FILTERS = 20;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** The documented spelling of each orderBy value; matched case-insensitively. */
const ORDER_BY: Readonly<Record<string, OrderField>> = { Id: 'id', CreatedAt: 'createdAt', Amount: 'amount' };

export function parsePaymentQuery(query: Readonly<Record<string, unknown>>): PaymentQuery {
  const errors: FieldError[] = [];
  const attempt = <T>(pointer: string, parse: () => T): T | undefined => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...(error.errors.length > 0 ? error.errors : [{ pointer, detail: error.message }]));
      return undefined;
    }
  };

  const filters: PaymentFilter[] = [];
  const raw = query.filter;
  const texts = raw === undefined ? [] : Array.isArray(raw) ? (raw as unknown[]) : [raw];
  if (texts.length > MAX_FILTERS) {
    errors.push({ pointer: '/query/filter', detail: `at most ${MAX_FILTERS} filters are allowed, got ${texts.length}` });
  } else {
    texts.forEach((text, index) => {
      const filter = attempt(`/query/filter/${index}`, () => parsePaymentFilter(text, `/query/filter/${index}`));
      if (filter !== undefined) filters.push(filter);
    });
  }
  const orderBy = attempt('/query/orderBy', () => parseOrderBy(single(query.orderBy, '/query/orderBy')));
  const limit = attempt('/query/limit', () => parseLimit(single(query.limit, '/query/limit')));
  const pageToken = attempt('/query/pageToken', () => single(query.pageToken, '/query/pageToken'));

  if (errors.length > 0) {
    throw new ValidationError(errors.length === 1 ? errors[0].detail : `The query has ${errors.length} invalid parameters.`, errors);
  }
  return { filters, orderBy: orderBy!, limit: limit!, ...(pageToken ? { pageToken } : {}) };
}

/** One `field op value` filter; a problem is a 422 at `pointer`. */
export function parsePaymentFilter(text: unknown, pointer: string): PaymentFilter {
  const fail = (detail: string): never => {
    throw ValidationError.at(pointer, detail);
  };
  if (typeof text !== 'string') return fail('expected `field op value` as a string');
  const first = text.indexOf(' ');
  const second = first < 0 ? -1 : text.indexOf(' ', first + 1);
  // Empty field (leading space), empty operator (two spaces) or empty value: the shape is wrong, whatever the words.
  if (first <= 0 || second < 0 || second === first + 1 || second === text.length - 1) {
    return fail(`expected \`field op value\` separated by single spaces, e.g. \`status eq succeeded\`; got ${quote(text)}`);
  }
  const field = text.slice(0, first);
  const op = text.slice(first + 1, second);
  const value = text.slice(second + 1);
  if (!(FILTER_FIELDS as readonly string[]).includes(field)) {
    return fail(`unknown field ${quote(field)}: expected one of ${FILTER_FIELDS.join(', ')}`);
  }
  if (!(FILTER_OPS as readonly string[]).includes(op)) {
    return fail(`unknown operator ${quote(op)}: expected one of ${FILTER_OPS.join(', ')}`);
  }
  const known = field as FilterField;
  if (!OPS_BY_FIELD[known].includes(op as FilterOp)) {
    return fail(`operator ${op} does not apply to ${known}: use ${OPS_BY_FIELD[known].join(' or ')}`);
  }
  const bad = (expected: string): never => fail(`bad value for ${known}: expected ${expected}; got ${quote(value)}`);
  switch (known) {
    case 'status':
      if (!(PAYMENT_STATUSES as readonly string[]).includes(value)) bad(`one of ${PAYMENT_STATUSES.join(', ')}`);
      return { field: known, op: op as EqualityOp, value: value as PaymentStatus };
    case 'invoiceId':
    case 'customerId':
      if (!isUuid(value)) bad('a uuid');
      return { field: known, op: op as EqualityOp, value: value.toLowerCase() };
    case 'provider':
      if (!isKnownProvider(value)) bad(`one of ${KNOWN_PROVIDERS.join(', ')}`);
      return { field: known, op: op as EqualityOp, value: value as KnownProvider };
    case 'currency':
      if (!isSupportedCurrency(value.toLowerCase())) bad('a supported ISO 4217 currency code, e.g. EUR');
      return { field: known, op: op as EqualityOp, value: value.toUpperCase() };
    case 'amount': {
      const amount = /^-?\d{1,20}$/.test(value) ? BigInt(value) : null;
      if (amount === null || amount > MAX_AMOUNT || amount < -MAX_AMOUNT) bad(`an integer number of minor units within ±${MAX_AMOUNT}`);
      return { field: known, op: op as FilterOp, value: Number(amount) };
    }
    case 'createdAt': {
      const at = parseTimestamp(value);
      if (at === null) {
        bad('a date (2025-03-01) or an RFC 3339 date-time with Z or an offset (2025-03-01T10:00:00Z; send + as %2B), at most millisecond precision');
      }
      return { field: known, op: op as FilterOp, value: at! };
    }
  }
}

function parseOrderBy(value: string | undefined): PaymentQuery['orderBy'] {
  if (value === undefined || value === '') return { field: 'id', descending: false };
  const descending = value.startsWith('-');
  const name = descending ? value.slice(1) : value;
  const match = Object.keys(ORDER_BY).find((key) => key.toLowerCase() === name.toLowerCase());
  if (match === undefined) {
    throw ValidationError.at(
      '/query/orderBy',
      `must be one of ${Object.keys(ORDER_BY).join(', ')}, optionally prefixed with - for descending; got ${quote(value)}`,
    );
  }
  return { field: ORDER_BY[match], descending };
}

function parseLimit(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_LIMIT;
  // Digits only: Number() would also take ' 5', '1e1' and '0x10'.
  const limit = /^\d{1,3}$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw ValidationError.at('/query/limit', `must be an integer from 1 to ${MAX_LIMIT}; got ${quote(value)}`);
  return limit;
}

/** A parameter that may appear at most once, as a string. */
function single(value: unknown, pointer: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw ValidationError.at(pointer, 'must be given at most once');
  if (typeof value !== 'string') throw ValidationError.at(pointer, 'must be a string');
  return value;
}

/** A client's text inside a detail: JSON-quoted (control characters escaped) and cut short. */
function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
