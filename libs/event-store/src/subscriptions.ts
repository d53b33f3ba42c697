import { EntityManager } from 'typeorm';
import { RecordedEvent } from './types';

/**
 * A read model built from the log. Pure with respect to the world: it only
 * writes its own tables, so it can be emptied and replayed at any time
 * (`npm run rebuild`). A batch is applied inside the transaction that also
 * moves the checkpoint, so each event's effect commits exactly once.
 */
export interface Projection {
  readonly name: string;
  /** The streams it reads; a write to one of them answers only after this projection has caught up (unless `caughtUpOnRead`). */
  readonly streamTypes: readonly string[];
  /**
   * True: no write waits for it; its reader calls `ProjectionRunner.catchUp` before reading, which brings it to
   * the head of the log then. For a read model that many hot writes feed and few requests read (analytics): the
   * cost moves from every write to the read that needs it, and a read still sees every write committed before it.
   */
  readonly caughtUpOnRead?: boolean;
  /**
   * The tables it writes (and `reset` empties), unqualified: `npm run replay`
   * rebuilds them in a shadow schema and compares them row by row.
   */
  readonly tables: readonly ReadModelTable[];
  /** Applies a batch in log order; implementations should touch each row once per batch, not once per event. */
  applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void>;
  /** Empties the read model so it can be rebuilt from position zero. */
  reset(tx: EntityManager): Promise<void>;
}

/**
 * A read model's table; `compareExcept` names columns a replay leaves out of
 * its comparison because they are not a function of the log (a surrogate
 * sequence from an identity, whose values depend on earlier rebuilds).
 */
export type ReadModelTable = string | { readonly name: string; readonly compareExcept: readonly string[] };

/**
 * A side effect driven by events (webhook fan-out, later billing triggers).
 * Same exactly-once checkpointing as a projection, but never reset or
 * replayed, and nobody's write waits for it.
 */
export interface Reactor {
  readonly name: string;
  /** The streams it reacts to; `all` for every event. */
  readonly streamTypes: readonly string[] | 'all';
  react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void>;
}
