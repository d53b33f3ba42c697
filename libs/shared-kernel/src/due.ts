/**
 * Whether work set for the instant `at` is due at `now`: at that instant or after it. The one comparison of the
 * clock-driven decisions (a trial's notice and end, a resume, a scheduled change, a failed charge's retry, a
 * booking after its grace period, a collection try): what is due at an instant is done once the clock reaches it,
 * whichever way the clock gets there (a worker's poll, an advance landing on it exactly or passing it).
 */
export function isDueBy(at: Date | string, now: Date): boolean {
  return (typeof at === 'string' ? Date.parse(at) : at.getTime()) <= now.getTime();
}
