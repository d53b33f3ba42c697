import { parseLimit } from '@billing/platform';
import { readQuery } from '@billing/invoicing';
import { DomainError, FieldError, ValidationError } from '@billing/shared-kernel';
import { PageRequest, PriceFilter } from '../read-model/catalog-read-model';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RawListQuery {
  readonly limit?: unknown;
  readonly pageToken?: unknown;
}

export interface RawPriceListQuery extends RawListQuery {
  readonly archived?: unknown;
  readonly productId?: unknown;
}

/**
 * The query of a list endpoint: only the named parameters, each at most once;
 * an unknown or repeated one is a 422 at `/query/<name>`. The same check as the
 * invoicing lists (reused from there; it belongs in the platform).
 */
export function readListQuery(query: Record<string, unknown>, allowed: readonly string[]): Record<string, string | undefined> {
  return readQuery(query, allowed);
}

/** limit 1-100 (default 20) and an opaque pageToken; problems point at /query/<name>. */
export function parsePageRequest(query: RawListQuery): PageRequest {
  return collect((errors) => pageRequest(query, errors));
}

/** The page plus the optional `archived=true|false` and `productId=<uuid>` filters, every problem reported at once. */
export function parsePriceListQuery(query: RawPriceListQuery): { page: PageRequest; filter: PriceFilter } {
  return collect((errors) => {
    const page = pageRequest(query, errors);
    const filter: { archived?: boolean; productId?: string } = {};
    if (query.archived !== undefined) {
      if (query.archived === 'true' || query.archived === 'false') filter.archived = query.archived === 'true';
      else errors.push({ pointer: '/query/archived', detail: 'must be true or false' });
    }
    if (query.productId !== undefined) {
      if (typeof query.productId === 'string' && UUID.test(query.productId)) filter.productId = query.productId.toLowerCase();
      else errors.push({ pointer: '/query/productId', detail: 'must be a UUID' });
    }
    return { page, filter };
  });
}

/** Bodies of actions without input (archive) may be absent or `{}`; anything else is a 422. */
export function assertNoInput(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body)) throw ValidationError.at('', 'the request body must be empty or {}');
  const unknown = Object.keys(body).map((key) => ({ pointer: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, detail: 'is not a known property' }));
  if (unknown.length > 0) throw new ValidationError('This action accepts no properties', unknown);
}

function pageRequest(query: RawListQuery, errors: FieldError[]): PageRequest {
  let limit = 20;
  try {
    limit = parseLimit(query.limit);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    errors.push(...error.errors);
  }
  if (query.pageToken === undefined || query.pageToken === '') return { limit };
  if (typeof query.pageToken !== 'string') {
    errors.push({ pointer: '/query/pageToken', detail: 'is not a page token returned by this service' });
    return { limit };
  }
  return { limit, pageToken: query.pageToken };
}

function collect<T>(parse: (errors: FieldError[]) => T): T {
  const errors: FieldError[] = [];
  const result = parse(errors);
  if (errors.length > 0) throw new ValidationError('The query parameters are invalid', errors);
  return result;
}
