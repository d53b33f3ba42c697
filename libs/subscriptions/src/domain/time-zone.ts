import { dayNumber, localTimeAt } from '@billing/shared-kernel';

/**
 * IANA time zones through Intl (Node ships full ICU): a subscription's dates
 * are local dates in its zone, and `billAt` is the UTC instant at which such a
 * date begins there.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Validation and local dates live in the shared kernel (customers carry a time zone too); re-exported for this domain's users. */
export { localDateOf, validTimeZone } from '@billing/shared-kernel';

/** The zone's offset from UTC at an instant (whole seconds, like every tzdata offset). */
function offsetAt(epochMs: number, timeZone: string): number {
  const wholeSeconds = Math.floor(epochMs / 1000) * 1000;
  const local = localTimeAt(wholeSeconds, timeZone);
  return dayNumber(local.date) * DAY_MS + local.sinceMidnight - wholeSeconds;
}

/**
 * The instant `date` begins in the zone: its local midnight, or, where the
 * clocks skip midnight (America/Havana in March), the first instant that
 * exists on that day. Where midnight happens twice (clocks fall back at
 * 24:00), the first one.
 */
export function startOfDayIn(date: string, timeZone: string): Date {
  const key = `${timeZone} ${date}`;
  let start = startsOfDays.get(key);
  if (start === undefined) {
    if (startsOfDays.size === STARTS_OF_DAYS_KEPT) startsOfDays.clear();
    start = firstInstantOf(date, timeZone);
    startsOfDays.set(key, start);
  }
  return new Date(start);
}

/**
 * Days' first instants computed so far, by zone and date: a step of the billing
 * engine asks for the same few days many times (each check of what is due walks
 * the periods), and each answer costs six Intl formats. Emptied when full.
 */
const startsOfDays = new Map<string, number>();
const STARTS_OF_DAYS_KEPT = 50_000;

function firstInstantOf(date: string, timeZone: string): number {
  const midnightUtc = dayNumber(date) * DAY_MS;
  // Local midnight is midnightUtc − offset for the offset in force at it; the
  // offsets a day either side cover an offset change on the day itself.
  const candidates = [-DAY_MS, 0, DAY_MS]
    .map((shift) => midnightUtc - offsetAt(midnightUtc + shift, timeZone))
    .filter((instant) => {
      const local = localTimeAt(instant, timeZone);
      return local.date === date && local.sinceMidnight === 0;
    });
  if (candidates.length > 0) return Math.min(...candidates);
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
  return onOrAfter;
}
