import { ValidationError } from './domain-error';

/**
 * The zone's canonical IANA name (`europe/helsinki` → `Europe/Helsinki`,
 * `Etc/UTC` → `UTC`), through Intl (Node ships full ICU); anything Intl
 * rejects is a 422 at `pointer`. Shared by subscriptions and customers, which
 * both carry a time zone.
 */
export function validTimeZone(value: unknown, pointer: string): string {
  if (typeof value === 'string' && /^[A-Za-z]/.test(value)) {
    try {
      return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
    } catch {
      // RangeError: not a zone Intl knows; reported below.
    }
  }
  throw ValidationError.at(pointer, 'must be an IANA time zone name, such as Europe/Helsinki or UTC');
}
