/** How long one awaited state may take on a busy machine (eventually's default deadline). */
export const WAIT_MS = 15_000;

/**
 * A test's time budget derived from its work, for a test that awaits more
 * states than jest's default 30 s allows for: each awaited state may take
 * WAIT_MS, plus the setup (an app, a database) once.
 */
export function budgetFor(awaitedStates: number): number {
  return 30_000 + awaitedStates * WAIT_MS;
}

/**
 * Reads until the state a test asserts is there, or fails at a deadline with
 * the last value read. Wait for the state you assert (a payment `succeeded`),
 * never for an earlier one (a payment exists) and then assert the later one:
 * that races the service's own asynchronous work (issue 20 #22).
 */
export async function eventually<T>(
  read: () => Promise<T>,
  until: (value: T) => boolean,
  { timeoutMs = WAIT_MS, what = 'the awaited state' }: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (until(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last read: ${JSON.stringify(value)?.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
