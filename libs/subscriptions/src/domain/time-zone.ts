import { dayNumber } from '@billing/shared-kernel';

/**
 * IANA time zones through Intl (Node ships full ICU): a subscription's dates
 * are local dates in its zone, and `billAt` is the UTC instant at which such a
 * date begins there.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

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

/** Validation lives in the shared kernel (customers carry a time zone too); re-exported for this domain's users. */
export { validTimeZone } from '@billing/shared-kernel';

interface LocalTime {
  readonly date: string;
  /** milliseconds since local midnight */
  readonly sinceMidnight: number;
}

function localTimeAt(epochMs: number, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const { type, value } of formatter(timeZone).formatToParts(new Date(epochMs))) parts[type] = value;
  return {
    date: `${parts.year.padStart(4, '0')}-${parts.month}-${parts.day}`,
    sinceMidnight: (Number(parts.hour) * 60 + Number(parts.minute)) * 60_000 + Number(parts.second) * 1000,
  };
}

/** The zone's offset from UTC at an instant (whole seconds, like every tzdata offset). */
function offsetAt(epochMs: number, timeZone: string): number {
  const wholeSeconds = Math.floor(epochMs / 1000) * 1000;
  const local = localTimeAt(wholeSeconds, timeZone);
  return dayNumber(local.date) * DAY_MS + local.sinceMidnight - wholeSeconds;
}

/** The local date of an instant in the zone. */
export function localDateOf(instant: Date, timeZone: string): string {
  return localTimeAt(instant.getTime(), timeZone).date;
}

/**
 * The instant `date` begins in the zone: its local midnight, or, where the
 * clocks skip midnight (America/Havana in March), the first instant that
 * exists on that day. Where midnight happens twice (clocks fall back at
 * 24:00), the first one.
 */
export function startOfDayIn(date: string, timeZone: string): Date {
  const midnightUtc = dayNumber(date) * DAY_MS;
  // Local midnight is midnightUtc − offset for the offset in force at it; the
  // offsets a day either side cover an offset change on the day itself.
  const candidates = [-DAY_MS, 0, DAY_MS]
    .map((shift) => midnightUtc - offsetAt(midnightUtc + shift, timeZone))
    .filter((instant) => {
      const local = localTimeAt(instant, timeZone);
      return local.date === date && local.sinceMidnight === 0;
    });
  if (candidates.length > 0) return new Date(Math.min(...candidates));
  // Midnight was skipped: bisect for the first instant on `date`. Offsets lie
  // within −12 h and +14 h, so 15 h before UTC midnight is still the day before
  // and 15 h after is already `date` (or later) in every zone.
  let before = midnightUtc - 15 * HOUR_MS;
  let onOrAfter = midnightUtc + 15 * HOUR_MS;
  while (onOrAfter - before > 1000) {
    const middle = Math.floor((before + onOrAfter) / 2000) * 1000;
    if (localTimeAt(middle, timeZone).date >= date) onOrAfter = middle;
    else before = middle;
  }
  return new Date(onOrAfter);
}
