import { DataSource, EntityManager } from 'typeorm';
import { BatchedLookup } from './batched-lookup';
import { queryRows } from './sql';
import { Projection, WriteAhead } from './subscriptions';
import { comparePositions, LogPosition, RecordedEvent, streamKey, StreamRef, WrittenStream } from './types';

/** A subscriber as the ProjectionRunner keeps it, and what the runner asks of one. */

export interface Waiter {
  readonly position: LogPosition;
  readonly resolve: () => void;
}

/** One subscriber (projection or reactor) and its in-process loop state. */
export interface Entry {
  readonly name: string;
  readonly kind: 'projection' | 'reactor';
  readonly streamTypes: readonly string[] | 'all';
  /** Reactor.eventTypes: what wakes it besides its poll (absent: every event of its streams). */
  readonly eventTypes?: ReadonlySet<string>;
  readonly handle: (events: readonly RecordedEvent[], tx: Parameters<Projection['applyBatch']>[1]) => Promise<void>;
  readonly projection?: Projection;
  running: Promise<void> | null;
  again: boolean;
  checkpoint: LogPosition | null;
  waiters: Waiter[];
  /** Retry delay while waiters are pending and a batch made no progress (lock held elsewhere, horizon not passed). */
  backoffMs: number;
  retryTimer: NodeJS.Timeout | null;
  /** The last batch made no progress: check the snapshot horizon (one cheap query) before trying a whole batch again. */
  stalled: boolean;
  /** Until then (ms since the epoch) another process holds this subscriber: wakes are put off (HELD_ELSEWHERE_MS). */
  heldElsewhereUntil: number;
}

export interface SubscriberLag {
  readonly name: string;
  readonly kind: 'projection' | 'reactor';
  /** Committed events it has not processed yet (counted up to 10 000). */
  readonly eventsBehind: number;
  readonly checkpointUpdatedAt: Date | null;
}

/** How far behind one subscriber is (ProjectionRunner.lag). */
export async function lagOf(manager: EntityManager, entry: Entry): Promise<SubscriberLag> {
  const [row] = await queryRows<{ behind: number; updated_at: Date | null }>(
    manager,
    `select c.updated_at,
            (select count(*)::int from (select 1 from events e
               where (e.transaction_id, e.global_position) > (coalesce(c.transaction_id, '0'::xid8), coalesce(c.global_position, 0))
                 and ($2::text[] is null or e.stream_type = any($2::text[]))
               limit 10000) as pending) as behind
       from (select 1) as one
       left join projection_checkpoints c on c.name = $1`,
    [entry.name, entry.streamTypes === 'all' ? null : entry.streamTypes],
  );
  return { name: entry.name, kind: entry.kind, eventsBehind: row?.behind ?? 0, checkpointUpdatedAt: row?.updated_at ?? null };
}

/** A row to write ahead: its stream's version, and the row. */
export interface AheadRow {
  readonly stream: StreamRef;
  readonly version: number;
  readonly row: object;
}

/**
 * A projection's rows written ahead in the same turn, one statement for all (a lookup that finds nothing: `load`
 * answers once written). Of two versions of one stream in a turn, only the later one is written: a statement may
 * write a row once.
 */
export function aheadWriter(ahead: WriteAhead, dataSource: DataSource): BatchedLookup<AheadRow, never> {
  let next = 0;
  return new BatchedLookup<AheadRow, never>(
    async (rows) => {
      const latest = new Map<string, AheadRow>();
      for (const row of rows) if ((latest.get(streamKey(row.stream))?.version ?? -1) < row.version) latest.set(streamKey(row.stream), row);
      await ahead.write(
        [...latest.values()].map(({ row }) => row),
        dataSource.manager,
      );
      return [];
    },
    // Every waiting write is answered on its own (BatchedLookup would otherwise keep one of the same key).
    { key: () => String(next++), row: () => '' },
  );
}

/** The last position among the written streams this subscriber reads, or null if it reads none of them. */
export function lastPositionRead(entry: Entry, written: readonly WrittenStream[]): LogPosition | null {
  let last: LogPosition | null = null;
  for (const { streamType, position } of written) {
    if (!reads(entry, [streamType])) continue;
    if (!last || comparePositions(position, last) > 0) last = position;
  }
  return last;
}

export function reads(entry: Entry, streamTypes: readonly string[]): boolean {
  return entry.streamTypes === 'all' || streamTypes.some((type) => entry.streamTypes.includes(type));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function reached(entry: Entry, position: LogPosition): boolean {
  return entry.checkpoint !== null && comparePositions(entry.checkpoint, position) >= 0;
}
