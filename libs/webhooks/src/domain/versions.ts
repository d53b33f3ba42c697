/**
 * Webhook payload versions, selected by the `X-version` header at subscribe
 * time (date labels, year-month). A subscription keeps the version it chose,
 * so payload changes never reach existing receivers unasked.
 */
import { ValidationError } from '@billing/shared-kernel';

export const SUPPORTED_VERSIONS = ['2022-03'] as const;
export type WebhookVersion = (typeof SUPPORTED_VERSIONS)[number];
export const NEWEST_VERSION: WebhookVersion = '2022-03';

export function isSupportedVersion(value: unknown): value is WebhookVersion {
  return (SUPPORTED_VERSIONS as readonly unknown[]).includes(value);
}

/** Missing (or empty) header: the newest version. Anything not supported: 422 at the header. */
export function resolveVersion(header?: string): WebhookVersion {
  const label = header?.trim();
  if (!label) return NEWEST_VERSION;
  if (isSupportedVersion(label)) return label;
  const detail = /^\d{4}-(0[1-9]|1[0-2])$/.test(label)
    ? `unknown version ${label}; supported: ${SUPPORTED_VERSIONS.join(', ')}`
    : `must be a version label of the form YYYY-MM; supported: ${SUPPORTED_VERSIONS.join(', ')}`;
  throw ValidationError.at('/headers/x-version', detail, 'unknown-version');
}
