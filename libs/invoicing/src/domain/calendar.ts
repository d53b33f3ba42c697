import { CommandMetadata, ValidationError } from '@billing/shared-kernel';

/**
 * Calendar dates (YYYY-MM-DD) in UTC: the service has no notion of the
 * caller's time zone. ISO strings of that shape compare correctly as text.
 * Date objects here only do arithmetic on given values, never read the clock.
 */

export function validDate(value: unknown, pointer: string): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const parsed = new Date(`${value}T00:00:00.000Z`);
    if (!Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value)) return value;
  }
  throw ValidationError.at(pointer, 'must be a date (YYYY-MM-DD)');
}

/** Today, from the command's time. */
export function today(meta: CommandMetadata): string {
  return meta.now.toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
