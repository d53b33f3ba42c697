const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|([+-])(\d{2}):(\d{2})))?$/;

/**
 * A date (midnight UTC) or an RFC 3339 date-time with a zone, years 0001–9999 (Postgres has no year 0), as an instant.
 * Components are range-checked, not normalised: 2025-02-30 is refused, not
 * read as March 2nd. Finer than milliseconds is refused rather than truncated,
 * so `gt` never silently matches the instant it excludes.
 */
export function parseTimestamp(text: string): Date | null {
  const m = DATE_TIME.exec(text);
  if (m === null) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = m[4] === undefined ? [0, 0, 0] : [Number(m[4]), Number(m[5]), Number(m[6])];
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0'));
  const offsetMinutes = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  if (m[10] !== undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return null;
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return null;
  date.setUTCHours(hour, minute, second, millis);
  const instant = new Date(date.getTime() - offsetMinutes * 60_000);
  // Postgres has no year 0 (nor anything past 9999 in ISO form): outside 0001–9999 is no instant we store.
  return instant.getUTCFullYear() < 1 || instant.getUTCFullYear() > 9999 ? null : instant;
}
