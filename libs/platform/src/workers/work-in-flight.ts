/**
 * The work a worker has under way per key, in this process, for someone who must not answer before it ended: a
 * test-clock advance waits for the worker's pass over its environment that was under way when it came, and for one
 * that began while the advance made its own tries, so it never answers while the worker has a try of that
 * environment half made (issue 41 #3). Waiting never fails: the worker logs its own failures.
 */
export class WorkInFlight {
  private readonly running = new Map<string, Set<Promise<unknown>>>();

  /** Runs `work` for `key`, known as in flight until it ends; answers what it answers. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const result = work();
    const pieces = this.running.get(key) ?? new Set<Promise<unknown>>();
    pieces.add(result);
    this.running.set(key, pieces);
    const forget = () => {
      pieces.delete(result);
      if (pieces.size === 0 && this.running.get(key) === pieces) this.running.delete(key);
    };
    result.then(forget, forget);
    return result;
  }

  /** Resolves once every piece of work for `key` in flight now has ended (at once when there is none). */
  async ended(key: string): Promise<void> {
    await Promise.allSettled([...(this.running.get(key) ?? [])]);
  }

  /** Keys with work in flight: none once all work ended, so the map does not grow with every key seen. */
  get busyKeys(): number {
    return this.running.size;
  }
}
