/**
 * Reads until the state a test asserts is there, or fails at a deadline with
 * the last value read. Wait for the state you assert (a payment `succeeded`),
 * never for an earlier one (a payment exists) and then assert the later one:
 * that races the service's own asynchronous work (issue 20 #22).
 */
export async function eventually<T>(
  read: () => Promise<T>,
  until: (value: T) => boolean,
  { timeoutMs = 15_000, what = 'the awaited state' }: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (until(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last read: ${JSON.stringify(value)?.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
