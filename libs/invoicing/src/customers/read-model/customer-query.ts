import { FieldError, parseTimestamp, ValidationError } from '@billing/shared-kernel';
import { parseLimit } from '@billing/platform';

/**
 * The query of GET /customers, in the syntax of GET /payments: `filter`
 * (repeatable, each `field op value` with single spaces, combined with and),
 * `orderBy` (`Id` default, `CreatedAt`, `Handle`; `-` for descending),
 * `limit` (1–100, 20) and `pageToken`. Every problem is a 422 at
 * `/query/filter/<i>`, `/query/orderBy` or `/query/limit`, all at once.
 *
 * Archived (deleted) customers are left out unless a filter names `status`.
 */

const OPS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
type Op = (typeof OPS)[number];
const FIELDS = { email: ['eq', 'ne'], handle: ['eq', 'ne'], status: ['eq', 'ne'], createdAt: OPS } as const satisfies Record<string, readonly Op[]>;
type Field = keyof typeof FIELDS;
const STATUSES = ['active', 'archived'];

export type CustomerFilter =
  | { readonly field: 'email' | 'handle' | 'status'; readonly op: Op; readonly value: string }
  | { readonly field: 'createdAt'; readonly op: Op; readonly value: Date };

export type CustomerOrderField = 'id' | 'createdAt' | 'handle';

export interface CustomerQuery {
  readonly filters: readonly CustomerFilter[];
  readonly orderBy: { readonly field: CustomerOrderField; readonly descending: boolean };
  readonly limit: number;
  readonly pageToken?: string;
}

const ORDER_BY: Readonly<Record<string, CustomerOrderField>> = { Id: 'id', CreatedAt: 'createdAt', Handle: 'handle' };
export const CUSTOMER_ORDER_BY = Object.keys(ORDER_BY).flatMap((name) => [name, `-${name}`]);
const MAX_FILTERS = 20;
const ACCEPTED = ['filter', 'orderBy', 'limit', 'pageToken'];

export function parseCustomerQuery(query: Readonly<Record<string, unknown>>): CustomerQuery {
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
  for (const name of Object.keys(query)) {
    if (!ACCEPTED.includes(name)) errors.push({ pointer: `/query/${name}`, detail: `unknown query parameter (accepted: ${ACCEPTED.join(', ')})` });
    else if (name !== 'filter' && typeof query[name] !== 'string') errors.push({ pointer: `/query/${name}`, detail: 'must be given once' });
  }
  const raw = query.filter;
  const texts = raw === undefined ? [] : Array.isArray(raw) ? (raw as unknown[]) : [raw];
  const filters: CustomerFilter[] = [];
  if (texts.length > MAX_FILTERS) errors.push({ pointer: '/query/filter', detail: `at most ${MAX_FILTERS} filters are allowed` });
  else texts.forEach((text, i) => attempt(`/query/filter/${i}`, () => filters.push(parseFilter(text, `/query/filter/${i}`))));
  const orderBy = attempt('/query/orderBy', () => parseOrderBy(query.orderBy));
  const limit = attempt('/query/limit', () => parseLimit(query.limit));
  if (errors.length > 0) throw new ValidationError(errors.length === 1 ? errors[0].detail : `The query has ${errors.length} invalid parameters.`, errors);
  const pageToken = typeof query.pageToken === 'string' ? query.pageToken : undefined;
  return { filters, orderBy: orderBy!, limit: limit!, ...(pageToken === undefined ? {} : { pageToken }) };
}

function parseFilter(text: unknown, pointer: string): CustomerFilter {
  const fail = (detail: string): never => {
    throw ValidationError.at(pointer, detail);
  };
  const match = typeof text === 'string' ? /^([^ ]+) ([^ ]+) (.+)$/s.exec(text) : null;
  if (!match) return fail('expected `field op value` separated by single spaces, e.g. `email eq billing@example.com`');
  const [, field, op, value] = match;
  if (!Object.hasOwn(FIELDS, field)) return fail(`unknown field: expected one of ${Object.keys(FIELDS).join(', ')}`);
  const ops: readonly Op[] = FIELDS[field as Field];
  if (!ops.includes(op as Op)) return fail(`operator ${JSON.stringify(op.slice(0, 10))} does not apply to ${field}: use ${ops.join(', ')}`);
  if (field === 'createdAt') {
    const at = parseTimestamp(value);
    if (at === null) return fail('bad value for createdAt: expected a date (2025-03-01) or an RFC 3339 date-time with Z or an offset (send + as %2B)');
    return { field, op: op as Op, value: at! };
  }
  if (field === 'status' && !STATUSES.includes(value)) return fail(`bad value for status: expected ${STATUSES.join(' or ')}`);
  if (value.length > 255) return fail(`bad value for ${field}: at most 255 characters`);
  return { field: field as 'email' | 'handle' | 'status', op: op as Op, value };
}

function parseOrderBy(value: unknown): CustomerQuery['orderBy'] {
  if (value === undefined || value === '') return { field: 'id', descending: false };
  const text = String(value);
  const descending = text.startsWith('-');
  const name = Object.keys(ORDER_BY).find((key) => key.toLowerCase() === (descending ? text.slice(1) : text).toLowerCase());
  if (name === undefined)
    throw ValidationError.at('/query/orderBy', `must be one of ${Object.keys(ORDER_BY).join(', ')}, optionally prefixed with - for descending`);
  return { field: ORDER_BY[name], descending };
}
