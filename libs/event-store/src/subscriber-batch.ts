import { PoolClient, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import { checkpointTarget } from './checkpoint-target';
import { EventRow, EventStore } from './event-store';
import { Entry } from './subscriber-entry';
import { LogPosition, RecordedEvent, ZERO_POSITION } from './types';

/** The channel on which a batch's commit announces its subscriber's new checkpoint (`name|transactionId|globalPosition`). */
export const CHECKPOINTS_CHANNEL = 'billing_checkpoints';

/** What a batch needs of the ProjectionRunner that runs it. */
export interface BatchRunner {
  readonly dataSource: DataSource;
  readonly eventStore: EventStore;
  /** SKIP_AHEAD_EVENTS, or the runner's option. */
  readonly skipAheadEvents: bigint;
  /** Records a checkpoint read or moved, resolving whoever waits for it. */
  readonly remember: (entry: Entry, position: LogPosition) => void;
}

/**
 * One batch transaction of one subscriber: its lock (null if another runner holds it), its checkpoint `from`,
 * the events `select` picks after it applied, and the checkpoint moved to the last of them, all committed
 * together. Returns how many events it applied. With `pageSize`, `select` picks from the log's next page after
 * the checkpoint (at most that many of the subscriber's events), read in the lock's round trip; else from none.
 * With `ahead` too, the checkpoint may move past the last event applied, over other streams' events: to the head
 * below the horizon ('head'), or to a given position (see checkpointTarget).
 */
export async function inBatch(
  runner: BatchRunner,
  entry: Entry,
  select: (page: readonly RecordedEvent[], from: LogPosition) => readonly RecordedEvent[],
  pageSize?: number,
  ahead?: 'head' | LogPosition,
): Promise<number | null> {
  const { name } = entry;
  const queryRunner = runner.dataSource.createQueryRunner();
  await queryRunner.connect();
  // The batch's own statements travel with BEGIN and COMMIT (simple protocol, our own literals only):
  // two round trips fewer per batch, which every waiting write pays.
  const client = (queryRunner as unknown as { databaseConnection: PoolClient }).databaseConnection;
  let open = false;
  try {
    open = true;
    const [, locking, checkpoint, page, headRows] = (await client.query(openingSql(runner.eventStore, entry, pageSize, ahead))) as unknown as [
      unknown,
      QueryResult<{ locked: boolean; horizon: string }>,
      QueryResult<{ transaction_id: string | null; global_position: string | null }>,
      QueryResult<EventRow> | undefined,
      QueryResult<{ transaction_id: string; global_position: string }> | undefined,
    ];
    if (!locking.rows[0].locked) return null;
    const state = checkpoint.rows[0];
    const from = state?.transaction_id ? { transactionId: state.transaction_id, globalPosition: state.global_position! } : ZERO_POSITION;
    runner.remember(entry, from);
    const read = page ? runner.eventStore.recordedEvents(page.rows) : [];
    const events = select(read, from);
    const last = events.length > 0 ? events[events.length - 1] : null;
    const headRow = headRows?.rows[0];
    const head = headRow ? { transactionId: headRow.transaction_id, globalPosition: headRow.global_position } : undefined;
    const complete = !!page && page.rows.length < pageSize!;
    const to = checkpointTarget(ahead, { read, complete, horizon: locking.rows[0].horizon, head }, last ?? from, runner.skipAheadEvents) ?? last;
    if (!to) return 0;
    if (events.length > 0) await entry.handle(events, queryRunner.manager);
    const position = { transactionId: digits(to.transactionId), globalPosition: digits(to.globalPosition) };
    await client.query(closingSql(name, position));
    open = false;
    // What TypeORM's own commit would announce (the webhooks context wakes its dispatcher on it).
    await (queryRunner as unknown as { broadcaster: { broadcast(event: string): Promise<void> } }).broadcaster.broadcast('AfterTransactionCommit');
    runner.remember(entry, position);
    return events.length;
  } finally {
    if (open) await client.query('rollback').catch(() => undefined);
    await queryRunner.release();
  }
}

/**
 * The statements that open a batch, sent with BEGIN in one round trip: the subscriber's lock, its checkpoint, and
 * (with `pageSize`) the log's next page after it and (with ahead 'head') the newest event below the horizon.
 */
function openingSql(eventStore: EventStore, entry: Entry, pageSize?: number, ahead?: 'head' | LogPosition): string {
  const { name } = entry;
  // Read models are derived and their checkpoint commits with them: a crash that loses this
  // commit loses both together, so waiting for the WAL flush buys nothing but latency.
  // The checkpoint is read by a statement of its own, after the lock's: a statement reads the snapshot taken
  // when it began, so read together with the lock it could miss the checkpoint of a batch committed (and its
  // lock released) while the statement ran, and apply that batch again. Still one round trip.
  // The page (a statement of its own too, so it sees what the checkpoint's statement saw or later) is read
  // before anything is written: this transaction has no xid yet, so it cannot hold back the snapshot horizon.
  const checkpointSql = `select c.transaction_id, c.global_position from projection_checkpoints c where c.name = ${literal(name)}`;
  // The page is read only by the runner that got the lock (a one-time filter on the lock's outcome): with several
  // processes following the log, the others lose the lock to it, and reading the page it applies (up to batchSize
  // events) for nothing cost more than the batch itself.
  // The horizon is taken once, before the checkpoint and the page are read: every transaction below it had ended
  // then, so the page sees all of their events, and the newest of them (`head`) is where a page that held
  // every one of the subscriber's may move its checkpoint.
  const horizon = `current_setting('billing.horizon')::xid8`;
  const pageSql = pageSize
    ? `; select * from (${eventStore.pageAfterSql(checkpointSql, pageSize, entry.streamTypes === 'all' ? undefined : entry.streamTypes, horizon)}) as page
         where current_setting('billing.batch_locked') = 'true'`
    : '';
  const headSql =
    pageSize && ahead === 'head'
      ? `; select transaction_id::text, global_position::text from events
          where transaction_id < ${horizon} and current_setting('billing.batch_locked') = 'true'
          order by events.transaction_id desc, events.global_position desc limit 1`
      : '';
  return `begin; select set_config('billing.batch_locked', pg_try_advisory_xact_lock(hashtext(${literal(`projection:${name}`)}))::text, true) = 'true' as locked,
                 set_config('synchronous_commit', 'off', true), set_config('billing.horizon', events_horizon()::text, true) as horizon;
   select c.transaction_id::text, c.global_position::text from projection_checkpoints c where c.name = ${literal(name)}
   ${pageSql}${headSql}`;
}

/** The statements that end a batch: its checkpoint moved to `position`, announced on CHECKPOINTS_CHANNEL, and the commit. */
function closingSql(name: string, position: LogPosition): string {
  return `insert into projection_checkpoints (name, transaction_id, global_position, updated_at)
     values (${literal(name)}, '${position.transactionId}'::xid8, ${position.globalPosition}, now())
     on conflict (name) do update set transaction_id = excluded.transaction_id,
       global_position = excluded.global_position, updated_at = excluded.updated_at;
     select pg_notify('${CHECKPOINTS_CHANNEL}', ${literal(`${name}|${position.transactionId}|${position.globalPosition}`)});
     commit`;
}

/** A SQL string literal of our own text (subscriber names, positions): quotes doubled, nothing else allowed in. */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** Positions come from Postgres as digit strings; anything else never reaches SQL. */
function digits(value: string): string {
  if (!/^\d+$/.test(value)) throw new Error(`not a log position: ${value}`);
  return value;
}
