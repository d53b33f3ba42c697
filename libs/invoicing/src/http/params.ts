import { ValidationError } from '@billing/shared-kernel';

/**
 * Query parameters of list endpoints: only the named ones are accepted, each at
 * most once; a failure is a 422 pointing at `/query/<name>`.
 */
export function readQuery(query: Record<string, unknown>, allowed: readonly string[]): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    if (!allowed.includes(name)) throw ValidationError.at(`/query/${name}`, 'unknown query parameter');
    if (typeof value !== 'string') throw ValidationError.at(`/query/${name}`, 'must be given once');
    result[name] = value;
  }
  return result;
}

export function oneOf<T extends string>(name: string, value: string | undefined, values: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) throw ValidationError.at(`/query/${name}`, `must be one of ${values.join(', ')}`);
  return value as T;
}
