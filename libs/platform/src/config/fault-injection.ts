/**
 * Where a crash test may have the service killed (FAULT_KILL_AT): between the two statements of a write that
 * must survive a crash there, to prove it does (test/processes/outcomes-crash.e2e-spec.ts). Unset: never.
 * Refused in production.
 */
export const FAULT_POINTS = [
  /** The e-mail dispatcher recorded a delivery's outcome in its row and has not appended its outcome event yet. */
  'email-outcome',
  /** The webhook dispatcher appended a subscription's disabling (a 410) and has not recorded the attempt yet. */
  'webhook-disabled',
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];

export function faultKillAt(value: string | undefined, isProduction: boolean): FaultPoint | null {
  if (!value) return null;
  if (isProduction) throw new Error('FAULT_KILL_AT: a crash test setting, refused in production');
  const point = FAULT_POINTS.find((candidate) => candidate === value);
  if (!point) throw new Error(`FAULT_KILL_AT: unknown point "${value}" (use ${FAULT_POINTS.join(', ')})`);
  return point;
}

/** Kills this process at once, as a crash would (SIGKILL: nothing runs after it), when `armed` is `point`. */
export function killIfArmed(armed: FaultPoint | null, point: FaultPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
