import { addDays, daysBetween, divideRoundingHalfAwayFromZero } from '@billing/shared-kernel';
import { addMonths, monthsBetween } from './calendar';

/**
 * The billing calendar of a subscription item: period k starts at
 * anchor + k × (termCount × termUnit) and ends the day before period k+1
 * starts (`end` is inclusive). Month and year steps are always taken from the
 * anchor, never from the previous period, so the anchor day survives short
 * months (Jan 31, Feb 28, Mar 31, …).
 */

/** The catalog's units (a domain depends on the shared kernel only, so they are repeated here). */
export type TermUnit = 'day' | 'week' | 'month' | 'year';

export interface Recurrence {
  readonly termCount: number;
  readonly termUnit: TermUnit;
}

/** Dates, both included. */
export interface Period {
  readonly start: string;
  readonly end: string;
}

/** The start of period k (k ≥ 0). */
export function periodStart(anchor: string, recurrence: Recurrence, k: number): string {
  const { termCount, termUnit } = recurrence;
  switch (termUnit) {
    case 'day':
      return addDays(anchor, k * termCount);
    case 'week':
      return addDays(anchor, k * termCount * 7);
    case 'month':
      return addMonths(anchor, k * termCount);
    case 'year':
      return addMonths(anchor, k * termCount * 12);
  }
}

export function nthPeriod(anchor: string, recurrence: Recurrence, k: number): Period {
  return { start: periodStart(anchor, recurrence, k), end: addDays(periodStart(anchor, recurrence, k + 1), -1) };
}

/** The index of the period holding `date`; a date before the anchor is in the first period. */
export function periodIndexAt(anchor: string, recurrence: Recurrence, date: string): number {
  if (date <= anchor) return 0;
  const { termCount, termUnit } = recurrence;
  if (termUnit === 'day' || termUnit === 'week') {
    return Math.floor(daysBetween(anchor, date) / (termCount * (termUnit === 'week' ? 7 : 1)));
  }
  // The month count is exact up to the day of month: at most one step off either way.
  let k = Math.floor(monthsBetween(anchor, date) / (termCount * (termUnit === 'year' ? 12 : 1)));
  while (k > 0 && periodStart(anchor, recurrence, k) > date) k--;
  while (periodStart(anchor, recurrence, k + 1) <= date) k++;
  return k;
}

export function periodAt(anchor: string, recurrence: Recurrence, date: string): Period {
  return nthPeriod(anchor, recurrence, periodIndexAt(anchor, recurrence, date));
}

/**
 * How long a term is, so a renewal repeats it: whole months when
 * `end + 1 day` is `start` plus whole months by the anchor-day rule (Jan 1–Dec 31
 * is 12 months, Jan 31–Feb 27 is 1), otherwise days (Jan 31–Feb 28 in a common
 * year is 29 days).
 */
export interface TermLength {
  readonly count: number;
  readonly unit: 'month' | 'day';
}

export function termLengthOf(start: string, end: string): TermLength {
  const next = addDays(end, 1);
  const months = monthsBetween(start, next);
  if (months > 0 && addMonths(start, months) === next) return { count: months, unit: 'month' };
  return { count: daysBetween(start, next), unit: 'day' };
}

/** The last day of term number `terms` (1 = the first) of a subscription anchored on `anchor`. */
export function termEnd(anchor: string, length: TermLength, terms: number): string {
  const next = length.unit === 'month' ? addMonths(anchor, length.count * terms) : addDays(anchor, length.count * terms);
  return addDays(next, -1);
}

/** A shortened period's share of the full period's amount, rounded half away from zero once. */
export function proRate(fullAmount: bigint, daysUsed: number, daysInFullPeriod: number): bigint {
  if (daysUsed === daysInFullPeriod) return fullAmount;
  return divideRoundingHalfAwayFromZero(fullAmount * BigInt(daysUsed), BigInt(daysInFullPeriod));
}
