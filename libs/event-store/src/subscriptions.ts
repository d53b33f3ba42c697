import { EntityManager } from 'typeorm';
import { RecordedEvent, StreamRef } from './types';

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
  /**
   * For a read model whose row of a stream is a function of that stream alone (of some of its states, at least):
   * a command that wrote such a stream writes the row itself right after its commit (ProjectionRunner.writeAhead)
   * and answers without waiting for this projection. The projection still applies every event, in its own time,
   * and must never take a row back to an older version (nor a row written ahead to an equal one it would render
   * otherwise): both write the same row for the same state and version.
   */
  readonly writeAhead?: WriteAhead;
  /** Applies a batch in log order; implementations should touch each row once per batch, not once per event. */
  applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void>;
  /** Empties the read model so it can be rebuilt from position zero. */
  reset(tx: EntityManager): Promise<void>;
}

/**
 * A read model's table; `compareExcept` names columns a replay leaves out of
 * its comparison because they are not a function of the log (a surrogate
 * sequence from an identity, whose values depend on earlier rebuilds);
 * `jsonText` names text columns holding JSON, which a replay compares as
 * jsonb (the same document may be spelt differently: a migration converted
 * it, a rebuild wrote it again).
 */
export type ReadModelTable = string | { readonly name: string; readonly compareExcept?: readonly string[]; readonly jsonText?: readonly string[] };

/**
 * A side effect driven by events (webhook fan-out, later billing triggers).
 * Same exactly-once checkpointing as a projection, but never reset or
 * replayed, and nobody's write waits for it.
 */
export interface Reactor {
  readonly name: string;
  /** The streams it reacts to; `all` for every event. */
  readonly streamTypes: readonly string[] | 'all';
  /**
   * The event types it acts on, when it ignores the others of its streams: a worker then wakes it only for appends
   * with one of these, and its poll (ProjectionRunnerOptions.pollIntervalMs) moves its checkpoint over the rest.
   * Absent: every event of its streams.
   */
  readonly eventTypes?: readonly string[];
  react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void>;
}

/** How a command writes a projection's row ahead of it (Projection.writeAhead). */
export interface WriteAhead {
  /** The streams whose rows it writes ahead. */
  readonly streamType: string;
  /** The row of `stream` at `version` with the state the command decided, or null when that row depends on more than the stream. */
  row(stream: StreamRef, state: unknown, version: number): object | null;
  /** Writes rows (several commands', one per stream) in one statement, none over a stored row at the same or a later version. */
  write(rows: readonly object[], manager: EntityManager): Promise<void>;
}
