import { connectedUnitOfWork } from './unit-of-work';

/**
 * Lookups by key that arrive in the same turn of the event loop share one statement: under concurrent reads one
 * round trip (a write and a read on a connection, on this machine the costliest part of a read) serves every
 * request that came in with it. A lookup waits at most for the current turn's other callbacks; it reads what was
 * committed when the statement runs, so after the lookup was asked (read-your-writes holds). Inside a unit of work
 * a lookup runs alone, on the unit's connection, to see the unit's own writes.
 */
export class BatchedLookup<Key, Row> {
  private pending: { key: Key; resolve: (row: Row | null) => void; reject: (error: unknown) => void }[] = [];

  constructor(
    /** The rows of these keys (any order, absent ones left out), in one statement. */
    private readonly fetch: (keys: readonly Key[]) => Promise<readonly Row[]>,
    /** Equal for a key and the row it finds. */
    private readonly keyOf: { key(key: Key): string; row(row: Row): string },
  ) {}

  load(key: Key): Promise<Row | null> {
    if (connectedUnitOfWork()) return this.fetch([key]).then((rows) => rows[0] ?? null);
    return new Promise((resolve, reject) => {
      if (this.pending.push({ key, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const found = new Map(
        (await this.fetch([...new Map(batch.map(({ key }) => [this.keyOf.key(key), key])).values()])).map((row) => [this.keyOf.row(row), row]),
      );
      for (const { key, resolve } of batch) resolve(found.get(this.keyOf.key(key)) ?? null);
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }
}
