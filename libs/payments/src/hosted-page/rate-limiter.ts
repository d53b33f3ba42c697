/**
 * Requests per client address in fixed one-minute windows, in this process's memory: enough to make guessing
 * hosted page tokens pointless (they are 2^128-unguessable anyway) and to keep one address from rendering pages
 * in a loop. Behind several processes each counts its own share. Addresses seen in an earlier window are
 * forgotten when a new window starts, so the map holds at most one window's addresses.
 */
export class FixedWindowRateLimiter {
  private window = -1;
  private counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts the request; false when the address is over its limit in this window. */
  allow(address: string, now: number): boolean {
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, count);
    return count <= this.limit;
  }

  /** Seconds until the current window ends (Retry-After). */
  retryAfterSeconds(now: number): number {
    return Math.max(1, Math.ceil(((this.window + 1) * this.windowMs - now) / 1000));
  }
}
