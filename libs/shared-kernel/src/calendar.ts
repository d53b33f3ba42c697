import { ValidationError } from './domain-error';

/**
 * Calendar dates are ISO `YYYY-MM-DD` strings (they compare correctly as
 * text). Arithmetic goes through day numbers since 1970-01-01, never through a
 * clock or the host's time zone.
 */

const DAY_MS = 86_400_000;

/** A real calendar date written `YYYY-MM-DD` (2026-02-30 is not one), else a 422 at `pointer`. */
export function validDate(value: unknown, pointer: string): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const parsed = Date.parse(`${value}T00:00:00Z`);
    if (!Number.isNaN(parsed) && dateOfDayNumber(parsed / DAY_MS) === value) return value;
  }
  throw ValidationError.at(pointer, 'must be a date (YYYY-MM-DD)');
}

export function dayNumber(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}

export function dateOfDayNumber(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return dateOfDayNumber(dayNumber(date) + days);
}

/** `to − from` in days: 0 for the same date. */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** `date` plus whole months, keeping its day of month, clamped to the last day of a shorter month (Jan 31 + 1 → Feb 28). */
export function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = index - targetYear * 12 + 1;
  const targetDay = Math.min(day, daysInMonth(targetYear, targetMonth));
  return `${String(targetYear).padStart(4, '0')}-${String(targetMonth).padStart(2, '0')}-${String(targetDay).padStart(2, '0')}`;
}
