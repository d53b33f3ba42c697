import { DataSource } from 'typeorm';
import { EventStore } from './event-store';
import { queryRows } from './sql';
import { Entry, reads, sleep } from './subscriber-entry';
import { comparePositions, LogPosition, RecordedEvent, ZERO_POSITION } from './types';

export interface RebuildOptions {
  /** Events per page of the log (default REBUILD_PAGE_SIZE). */
  readonly pageSize?: number;
  /** Called after each page. */
  readonly progress?: (progress: RebuildProgress) => void;
}

export interface RebuildProgress {
  /** Events read so far, of `total` (the events of the rebuilt projections' streams up to the head). */
  readonly events: number;
  readonly total: number;
  readonly elapsedMs: number;
  /** Per projection, the time its pages took to apply so far (pages apply side by side, so these overlap). */
  readonly applyMs: ReadonlyMap<string, number>;
}

/**
 * Events per page of a rebuild: a projection writes each row it touches once per page, so the larger the page the
 * fewer writes (two events per invoice stream, both usually in one page); 20 000 events hold some tens of MB.
 */
export const REBUILD_PAGE_SIZE = 20_000;

/** What a rebuild needs of the ProjectionRunner (ProjectionRunner.rebuild). */
export interface RebuildRunner {
  readonly dataSource: DataSource;
  readonly eventStore: EventStore;
  /** The newest committed event's position among these stream types, or null for none. */
  readonly headOf: (streamTypes: readonly string[]) => Promise<LogPosition | null>;
  /** One batch of `entry` applying what `select` picks, or null while another runner holds it. */
  readonly inBatch: (entry: Entry, select: (page: readonly RecordedEvent[], from: LogPosition) => readonly RecordedEvent[]) => Promise<number | null>;
}

/** ProjectionRunner.rebuild, for its entries (projections only). */
export async function rebuildProjections(entries: readonly Entry[], runner: RebuildRunner, options: RebuildOptions): Promise<number> {
  for (const entry of entries) {
    if (!entry.projection) throw new Error(`${entry.name} is a reactor: reactors have side effects and are never replayed`);
  }
  if (entries.length === 0) return 0;
  const pageSize = options.pageSize ?? REBUILD_PAGE_SIZE;
  await runner.dataSource.transaction(async (tx) => {
    // In one order whatever the caller's, so two rebuilds of overlapping sets cannot deadlock.
    for (const name of entries.map((entry) => entry.name).sort()) await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
    for (const entry of entries) await entry.projection!.reset(tx);
    await tx.query(
      `insert into projection_checkpoints (name, transaction_id, global_position, updated_at) select unnest($1::text[]), '0', 0, now()
       on conflict (name) do update set transaction_id = '0', global_position = 0, updated_at = now()`,
      [entries.map((entry) => entry.name)],
    );
  });
  for (const entry of entries) entry.checkpoint = ZERO_POSITION;
  const streamTypes = [...new Set(entries.flatMap((entry) => entry.projection!.streamTypes))];
  // Replay up to the head of the log as it is now.
  const head = await runner.headOf(streamTypes);
  if (!head) return 0;
  const [{ total }] = await queryRows<{ total: number }>(
    runner.dataSource.manager,
    `select count(*)::int as total from events where stream_type = any($1::text[]) and (transaction_id, global_position) <= ($2::xid8, $3::bigint)`,
    [streamTypes, head.transactionId, head.globalPosition],
  );
  const started = Date.now();
  const applyMs = new Map(entries.map((entry) => [entry.name, 0]));
  /** Where each projection's checkpoint must stand at least: the last of its events this rebuild applied. */
  const applied = new Map(entries.map((entry) => [entry, ZERO_POSITION]));
  const readPage = (after: LogPosition) => {
    const page = runner.eventStore.readAll(after, pageSize, runner.dataSource.manager, streamTypes);
    // Read ahead while the current page is applied: a failure surfaces when the page is awaited.
    page.catch(() => undefined);
    return page;
  };
  let cursor = ZERO_POSITION;
  let done = 0;
  let next = readPage(cursor);
  while (comparePositions(cursor, head) < 0) {
    const events = (await next).filter((event) => comparePositions(event, head) <= 0);
    if (events.length === 0) {
      // An older transaction somewhere in the cluster is still open (the snapshot horizon): not the end yet.
      await sleep(10);
      next = readPage(cursor);
      continue;
    }
    cursor = events[events.length - 1];
    next = comparePositions(cursor, head) < 0 ? readPage(cursor) : Promise.resolve([]);
    await Promise.all(
      entries.map(async (entry) => {
        const began = Date.now();
        const own = events.filter((event) => reads(entry, [event.streamType]));
        await applyPage(runner, entry, own, applied.get(entry)!);
        if (own.length > 0) applied.set(entry, own[own.length - 1]);
        applyMs.set(entry.name, applyMs.get(entry.name)! + Date.now() - began);
      }),
    );
    done += events.length;
    options.progress?.({ events: done, total, elapsedMs: Date.now() - started, applyMs });
  }
  return done;
}

/** One page of a rebuild for one projection: what lies past its checkpoint, in one batch; waits while another runner holds it. */
async function applyPage(runner: RebuildRunner, entry: Entry, events: readonly RecordedEvent[], applied: LogPosition): Promise<void> {
  if (events.length === 0) return;
  while (
    (await runner.inBatch(entry, (_page, from) => {
      if (comparePositions(from, applied) < 0) throw new Error(`${entry.name} was reset by someone else during its rebuild`);
      return events.filter((event) => comparePositions(event, from) > 0);
    })) === null
  ) {
    await sleep(10);
  }
}
