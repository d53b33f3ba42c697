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

/** One formatter per zone: building an Intl.DateTimeFormat costs far more than using it. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

export interface LocalTime {
  readonly date: string;
  /** milliseconds since local midnight */
  readonly sinceMidnight: number;
}

/** The local date and time of day of an instant in the zone. */
export function localTimeAt(epochMs: number, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const { type, value } of formatter(timeZone).formatToParts(new Date(epochMs))) parts[type] = value;
  return {
    date: `${parts.year.padStart(4, '0')}-${parts.month}-${parts.day}`,
    sinceMidnight: (Number(parts.hour) * 60 + Number(parts.minute)) * 60_000 + Number(parts.second) * 1000,
  };
}

/** The local date of an instant in the zone. */
export function localDateOf(instant: Date, timeZone: string): string {
  return localTimeAt(instant.getTime(), timeZone).date;
}
