import { parseLimit, readQuery } from '@billing/platform';
import { PageRequest } from '../read-model/coupons.read-model';

/** limit 1–100 (default 20) and an opaque pageToken; unknown or repeated parameters are a 422 at /query/<name>. */
export function parsePageQuery(query: Record<string, unknown> | undefined): PageRequest {
  const q = readQuery(query, ['limit', 'pageToken'] as const);
  const limit = parseLimit(q.limit);
  return q.pageToken === undefined || q.pageToken === '' ? { limit } : { limit, pageToken: q.pageToken };
}
