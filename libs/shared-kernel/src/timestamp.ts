/**
 * The one reader of date-times in requests (bodies, query parameters, tokens): RFC 3339 with a zone.
 * Components are range-checked, not normalised: 2025-02-30 and T24:00:00 are refused, not read as
 * March 2nd or the next midnight (as `new Date()` does). Years 0001–9999 only (Postgres has no year 0).
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2})))?$/;

/**
 * A date (midnight UTC) or an RFC 3339 date-time with a zone, as an instant; for filters and tokens.
 * Finer than milliseconds is refused rather than truncated, so `gt` never silently matches the
 * instant it excludes.
 */
export function parseTimestamp(text: string): Date | null {
  const m = DATE_TIME.exec(text);
  // Filters take the upper-case T and Z only, as they always have.
  if (m === null || /[tz]/.test(text) || (m[7] !== undefined && m[7].length > 3)) return null;
  return instantOf(m);
}

/**
 * An RFC 3339 date-time with Z or an offset (never a date alone, never a local time), as an instant;
 * for a moment a client reports. Precision is the millisecond: further fraction digits are dropped.
 */
export function parseDateTime(text: string): Date | null {
  const m = DATE_TIME.exec(text);
  return m === null || m[4] === undefined ? null : instantOf(m);
}

function instantOf(m: RegExpExecArray): Date | null {
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = m[4] === undefined ? [0, 0, 0] : [Number(m[4]), Number(m[5]), Number(m[6])];
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  const offsetMinutes = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  if (m[10] !== undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return null;
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (day < 1 || date.getUTCDate() !== day) return null;
  date.setUTCHours(hour, minute, second, millis);
  const instant = new Date(date.getTime() - offsetMinutes * 60_000);
  // Postgres has no year 0 (nor anything past 9999 in ISO form): outside 0001–9999 is no instant we store.
  return instant.getUTCFullYear() < 1 || instant.getUTCFullYear() > 9999 ? null : instant;
}
