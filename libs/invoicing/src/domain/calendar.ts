import { CommandMetadata } from '@billing/shared-kernel';

/**
 * Invoice dates are calendar dates in UTC (the shared kernel's): the service
 * has no notion of the caller's time zone.
 */

/** Today, from the command's time. */
export function today(meta: CommandMetadata): string {
  return meta.now.toISOString().slice(0, 10);
}
