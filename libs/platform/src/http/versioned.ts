import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ValidationError } from '@billing/shared-kernel';

/** ETags are the stream version, quoted: `"3"`. */
export function etagFor(version: number): string {
  return `"${version}"`;
}

/**
 * A resource with its version, as a write or a single-resource read returns
 * it. The edge (a Fastify preSerialization hook, see edge.ts) turns the
 * version into the ETag header and, for a creation, `location` into the
 * Location header; the body is the resource alone.
 */
export class Versioned<Resource> {
  constructor(
    readonly resource: Resource,
    readonly version: number,
    readonly location?: string,
  ) {}
}

/** The headers a Versioned result is answered with: its ETag and, for a creation, its Location. */
export function responseHeadersOf(result: Versioned<unknown>): Record<string, string> {
  return { etag: etagFor(result.version), ...(result.location ? { location: result.location } : {}) };
}

const ETAG = /^(W\/)?"(\d{1,9})"$/;

/** A version no stream ever has: the write answers as for a stale tag (409). */
const NO_VERSION = -1;

/**
 * The version a write is based on, from `If-Match`: undefined when absent or
 * `*` (whatever is current), else the number inside one ETag this service
 * issued. A weak tag (`W/"3"`) never matches: If-Match compares strongly
 * (RFC 9110, 13.1.1), so it is answered as a stale tag. Commands carry this
 * number, never the header.
 */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const match = ETAG.exec(header.trim());
  if (!match) throw ValidationError.at('/headers/if-match', 'must be one ETag returned by this service, such as "3"');
  return match[1] === undefined ? Number(match[2]) : NO_VERSION;
}

/** `@IfMatch() expectedVersion: number | undefined` in a controller method. */
export const IfMatch = createParamDecorator((_data: unknown, context: ExecutionContext): number | undefined => {
  const header = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>().headers['if-match'];
  return parseIfMatch(Array.isArray(header) ? header.join(',') : header);
});
