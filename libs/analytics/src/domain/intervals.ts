import { addDays, dayNumber, ValidationError } from '@billing/shared-kernel';

export const INTERVALS = ['month', 'week', 'day'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The most intervals one answer has (ten years of weeks; a bit over two years of days). */
export const MAX_INTERVALS = 800;

/** One interval of an answer: its days, `start` inclusive and `end` exclusive (UTC calendar dates). */
export interface Period {
  readonly start: string;
  readonly end: string;
}

/**
 * The calendar intervals from `from` (inclusive) to `to` (exclusive), both UTC dates: calendar months, ISO weeks
 * (Monday to Sunday) or days; the first and the last are cut at `from` and `to` when these fall inside one. Too many
 * is a 422 at /query/interval.
 */
export function periodsOf(from: string, to: string, interval: Interval): Period[] {
  const periods: Period[] = [];
  for (let start = from; start < to;) {
    const end = minDate(nextBoundary(start, interval), to);
    periods.push({ start, end });
    if (periods.length > MAX_INTERVALS) throw ValidationError.at('/query/interval', `gives more than ${MAX_INTERVALS} intervals from ${from} to ${to}`);
    start = end;
  }
  return periods;
}

function nextBoundary(date: string, interval: Interval): string {
  if (interval === 'day') return addDays(date, 1);
  if (interval === 'week') {
    // 1970-01-01 (day 0) was a Thursday: day numbers + 3 count from a Monday.
    const weekday = (((dayNumber(date) + 3) % 7) + 7) % 7;
    return addDays(date, 7 - weekday);
  }
  const [year, month] = date.split('-').map(Number);
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

function minDate(a: string, b: string): string {
  return a < b ? a : b;
}
