import { ValidationError, daysBetween, validDate as validCalendarDate } from '@billing/shared-kernel';

/** The subscriptions' calendar, on the shared kernel's dates: the last date a subscription may name, month steps. */

/**
 * The latest date a subscription may name. The calendar's dates end at
 * 9999-12-31; a thousand years' margin keeps every period, renewal and end
 * computed from a subscription's dates inside it.
 */
export const LAST_SUBSCRIPTION_DATE = '8999-12-31';
export const LAST_CALENDAR_DATE = '9999-12-31';

/** A calendar date no later than LAST_SUBSCRIPTION_DATE. */
export function validDate(value: unknown, pointer: string): string {
  const date = validCalendarDate(value, pointer);
  if (date > LAST_SUBSCRIPTION_DATE) throw ValidationError.at(pointer, `must not be after ${LAST_SUBSCRIPTION_DATE}`);
  return date;
}

/** Days from `start` to `end`, both included. */
export function daysInclusive(start: string, end: string): number {
  return daysBetween(start, end) + 1;
}

export function minDate(a: string, b: string): string {
  return a <= b ? a : b;
}

export function maxDate(a: string, b: string): string {
  return a >= b ? a : b;
}

/** Month steps live in the shared kernel (customers' discounts count months too); re-exported for this domain's users. */
export { addMonths } from '@billing/shared-kernel';

/** Calendar months from `from`'s month to `to`'s month, ignoring the days. */
export function monthsBetween(from: string, to: string): number {
  const [fromYear, fromMonth] = from.split('-').map(Number);
  const [toYear, toMonth] = to.split('-').map(Number);
  return (toYear - fromYear) * 12 + (toMonth - fromMonth);
}
