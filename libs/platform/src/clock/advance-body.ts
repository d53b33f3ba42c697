import { FieldError, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import { pointerToken } from '../http/validation';

/**
 * RFC 3339 `date-time`: a full date, `T`, a time with optional fraction, and
 * `Z` or a numeric offset (no local times: an instant must be unambiguous).
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const DATE_TIME_DETAIL = 'must be an RFC 3339 date-time with Z or an offset, e.g. 2027-01-31T00:00:00Z';

/**
 * The instant an RFC 3339 date-time names, or undefined when the text is not
 * one (wrong shape, or a field out of range such as 2027-02-30 or 24:00).
 * Precision is the millisecond: further fraction digits are dropped.
 */
export function parseDateTime(text: string): Date | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const milliseconds = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const sign = match[9] === '-' ? -1 : 1;
  const offsetHours = match[8] ? 0 : Number(match[10]);
  const offsetMinutes = match[8] ? 0 : Number(match[11]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const local = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, milliseconds);
  return new Date(local.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/** `POST /test-clock/advance`: exactly `{"to": <date-time>}`; every problem is reported at once, each at its JSON pointer. */
export function parseAdvanceBody(body: unknown): Date {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ValidationError.at('', 'the request body must be a JSON object: {"to": "<date-time>"}');
  }
  const errors: FieldError[] = Object.keys(body)
    .filter((key) => key !== 'to')
    .map((key) => ({ pointer: `/${pointerToken(key)}`, detail: UNKNOWN_PROPERTY }));
  const to: unknown = Object.prototype.hasOwnProperty.call(body, 'to') ? (body as { to: unknown }).to : undefined;
  const instant = typeof to === 'string' ? parseDateTime(to) : undefined;
  if (to === undefined || to === null) errors.push({ pointer: '/to', detail: 'is required' });
  else if (!instant) errors.push({ pointer: '/to', detail: DATE_TIME_DETAIL });
  if (errors.length > 0 || !instant) throw new ValidationError('The test clock advance is invalid', errors);
  return instant;
}
