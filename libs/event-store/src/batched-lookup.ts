import { connectedUnitOfWork } from './unit-of-work';

/**
 * Lookups by key share statements: under concurrent reads one round trip (a write and a read on a connection, on
 * this machine the costliest part of a read) serves every request that came in with it. A lookup is sent at the end
 * of the turn it was asked in, unless `maxInFlight` statements of this lookup are already running: then it waits for
 * one of them to answer and goes with every lookup asked meanwhile. So an idle service answers after one round trip,
 * as before, and a busy one sends fewer, larger statements instead of one per turn (each statement costs both sides
 * a socket write and Postgres a planning and an executor start). It reads what was committed when its statement
 * runs, so after the lookup was asked (read-your-writes holds). Inside a unit of work a lookup runs alone, on the
 * unit's connection, to see the unit's own writes.
 */
export class BatchedLookup<Key, Row> {
  private pending: { key: Key; resolve: (row: Row | null) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;
  private flushScheduled = false;

  constructor(
    /** The rows of these keys (any order, absent ones left out), in one statement. */
    private readonly fetch: (keys: readonly Key[]) => Promise<readonly Row[]>,
    /** Equal for a key and the row it finds. */
    private readonly keyOf: { key(key: Key): string; row(row: Row): string },
    /** Statements of this lookup running at once; the pool's other connections stay free for everything else. */
    private readonly maxInFlight = 2,
  ) {}

  load(key: Key): Promise<Row | null> {
    if (connectedUnitOfWork()) return this.fetch([key]).then((rows) => rows[0] ?? null);
    return new Promise((resolve, reject) => {
      this.pending.push({ key, resolve, reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.pending.length === 0 || this.inFlight >= this.maxInFlight) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.inFlight++;
    try {
      const found = new Map(
        (await this.fetch([...new Map(batch.map(({ key }) => [this.keyOf.key(key), key])).values()])).map((row) => [this.keyOf.row(row), row]),
      );
      for (const { key, resolve } of batch) resolve(found.get(this.keyOf.key(key)) ?? null);
    } catch (error) {
      for (const { reject } of batch) reject(error);
    } finally {
      this.inFlight--;
      this.scheduleFlush();
    }
  }
}
