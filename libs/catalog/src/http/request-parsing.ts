import { isUuid, oneOf, parseLimit, readQuery } from '@billing/platform';
import { FieldError, ValidationError } from '@billing/shared-kernel';
import { PageRequest, PriceFilter } from '../read-model/catalog-read-model';

const PAGE_PARAMETERS = ['limit', 'pageToken'] as const;
const PRICE_LIST_PARAMETERS = [...PAGE_PARAMETERS, 'archived', 'productId'] as const;

/** GET /products: limit 1-100 (default 20) and an opaque pageToken; unknown or repeated parameters are a 422 at /query/<name>. */
export function parseProductListQuery(query: Record<string, unknown> | undefined): PageRequest {
  return pageRequest(readQuery(query, PAGE_PARAMETERS));
}

/** GET /prices: the page plus the optional `archived=true|false` and `productId=<uuid>` filters, every problem reported at once. */
export function parsePriceListQuery(query: Record<string, unknown> | undefined): { page: PageRequest; filter: PriceFilter } {
  const q = readQuery(query, PRICE_LIST_PARAMETERS);
  const [page, archived, productId] = everyProblem(
    () => pageRequest(q),
    () => oneOf('archived', q.archived, ['true', 'false'] as const),
    () => uuid('productId', q.productId),
  );
  const filter: { archived?: boolean; productId?: string } = {};
  if (archived !== undefined) filter.archived = archived === 'true';
  if (productId !== undefined) filter.productId = productId;
  return { page, filter };
}

/** Bodies of actions without input (archive) may be absent or `{}`; anything else is a 422. */
function pageRequest(q: { limit?: string; pageToken?: string }): PageRequest {
  const limit = parseLimit(q.limit);
  return q.pageToken === undefined || q.pageToken === '' ? { limit } : { limit, pageToken: q.pageToken };
}

function uuid(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isUuid(value)) throw ValidationError.at(`/query/${name}`, 'must be a UUID');
  return value.toLowerCase();
}

/** Runs every parser and throws one 422 with all their field errors, so a client fixes its query in one round trip. */
function everyProblem<Results extends unknown[]>(...parsers: { [K in keyof Results]: () => Results[K] }): Results {
  const errors: FieldError[] = [];
  const results = parsers.map((parse) => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.errors);
      return undefined;
    }
  });
  if (errors.length > 0) throw new ValidationError('The query parameters are invalid', errors);
  return results as Results;
}
