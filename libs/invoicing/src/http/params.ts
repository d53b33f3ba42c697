import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError, ValidationError } from '@billing/shared-kernel';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Invoice ids are uuids: anything else names no invoice, so it is a 404 like any unknown id. */
@Injectable()
export class InvoiceIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID.test(value)) throw new NotFoundError('Invoice', value);
    return value.toLowerCase();
  }
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

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
