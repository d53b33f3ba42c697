import { ConflictError, ValidationError } from '@billing/shared-kernel';

/** ETags are the stream version, quoted: `"3"`. */
export function etagFor(version: number): string {
  return `"${version}"`;
}

/**
 * Optimistic concurrency over HTTP: a write with If-Match must name the
 * version it was based on; a stale one is a 409 (the interface lists 409 for
 * conflicts). No If-Match means "whatever is current".
 */
export function assertIfMatch(header: string | undefined, currentVersion: number): void {
  if (header === undefined || header.trim() === '*') return;
  const versions = header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  const parsed = versions.map((tag) => /^"(\d+)"$/.exec(tag)?.[1]);
  if (parsed.some((v) => v === undefined)) {
    throw ValidationError.at('/headers/if-match', 'must be an ETag returned by this service, such as "3"');
  }
  if (!parsed.includes(String(currentVersion))) {
    throw new ConflictError('version-conflict', `If-Match ${header} does not match the current version ${etagFor(currentVersion)}`);
  }
}
