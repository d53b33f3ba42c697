import { Client, PoolClient, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import { ReadModelTimeoutError } from './errors';
import { EVENTS_CHANNEL, EventStore } from './event-store';
import { queryRows } from './sql';
import { Projection, Reactor } from './subscriptions';
import { comparePositions, LogPosition, RecordedEvent, WrittenStream, ZERO_POSITION } from './types';

export const CHECKPOINTS_CHANNEL = 'billing_checkpoints';

export interface ProjectionRunnerOptions {
  readonly batchSize?: number;
  /** Fallback poll for a worker when no NOTIFY arrives (a lost connection). */
  readonly pollIntervalMs?: number;
  /** How long a write waits for its read models before answering with an error. */
  readonly readModelTimeoutMs?: number;
  readonly logger?: { error(message: string, meta?: unknown): void; warn(message: string, meta?: unknown): void };
}

interface Waiter {
  readonly position: LogPosition;
  readonly resolve: () => void;
}

/** One subscriber (projection or reactor) and its in-process loop state. */
interface Entry {
  readonly name: string;
  readonly kind: 'projection' | 'reactor';
  readonly streamTypes: readonly string[] | 'all';
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
}

export interface SubscriberLag {
  readonly name: string;
  readonly kind: 'projection' | 'reactor';
  /** Committed events it has not processed yet (counted up to 10 000). */
  readonly eventsBehind: number;
  readonly checkpointUpdatedAt: Date | null;
}

/** Between retries of a waited-for batch that made no progress; commits elsewhere wake it sooner (LISTEN). */
const MAX_BACKOFF_MS = 10;
/**
 * Nobody waits for a reactor, so it gathers the appends of this long into
 * one batch: a batch costs four or five round trips whatever its size, and
 * under load gathering 25 ms instead of 5 took the statements per POST from
 * 3.4 to 2.8 (docs/BENCHMARKS.md) for at most 20 ms more before a
 * notification is queued.
 */
const REACTOR_GATHER_MS = 25;

/**
 * Runs projections and reactors over the global log. Each subscriber advances
 * in batches; a batch holds a transaction-scoped advisory lock on its name, so
 * across any number of processes exactly one runner applies a given batch.
 *
 * Two ways to run:
 * - a worker (`runContinuously`) follows the log for every subscriber, woken
 *   by NOTIFY with polling as the fallback;
 * - any process that writes calls `awaitProjections` after its commit: the
 *   projections reading the written streams run in-process at once (or, if
 *   another process holds their lock, this one retries until the checkpoints,
 *   announced on CHECKPOINTS_CHANNEL, pass the write). An API process
 *   therefore never depends on a worker being alive for read-your-writes.
 */
export class ProjectionRunner {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly readModelTimeoutMs: number;
  private readonly entries = new Map<string, Entry>();
  private listener: Client | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private runsContinuously = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly eventStore: EventStore,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.readModelTimeoutMs = options.readModelTimeoutMs ?? 5000;
  }

  registerProjection(projection: Projection): void {
    this.add({
      name: projection.name,
      kind: 'projection',
      streamTypes: projection.streamTypes,
      handle: (events, tx) => projection.applyBatch(events, tx),
      projection,
    });
  }

  registerReactor(reactor: Reactor): void {
    this.add({ name: reactor.name, kind: 'reactor', streamTypes: reactor.streamTypes, handle: (events, tx) => reactor.react(events, tx) });
  }

  get projectionNames(): string[] {
    return [...this.entries.values()].filter((e) => e.kind === 'projection').map((e) => e.name);
  }

  get subscriberNames(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * Listens for checkpoint announcements (every process) and, with
   * `runContinuously` (workers), follows the log for every subscriber.
   */
  async start(listenUrl: string, { runContinuously }: { runContinuously: boolean }): Promise<void> {
    this.stopped = false;
    this.runsContinuously = runContinuously;
    await this.dataSource.query(`insert into projection_checkpoints (name) select unnest($1::text[]) on conflict do nothing`, [this.subscriberNames]);
    this.listener = new Client({ connectionString: listenUrl, application_name: 'billing-projector-listen' });
    // Every commit that appends events or moves a checkpoint may also release the snapshot horizon that holds
    // a waiting write back, so both wake whoever waits here; a worker also follows the log on every append.
    this.listener.on('notification', (message) => {
      if (message.channel === CHECKPOINTS_CHANNEL) this.onCheckpointAnnounced(message.payload ?? '');
      if (message.channel === EVENTS_CHANNEL && this.runsContinuously) this.wakeReaders(message.payload ?? '');
      else this.wakeWaiting();
    });
    this.listener.on('error', (error) => this.options.logger?.warn('projection listener connection failed', { error: String(error) }));
    await this.listener.connect();
    await this.listener.query(`listen ${CHECKPOINTS_CHANNEL}; listen ${EVENTS_CHANNEL}`);
    if (runContinuously) {
      this.pollTimer = setInterval(() => this.wakeAll(), this.pollIntervalMs);
      this.pollTimer.unref();
      this.wakeAll();
    }
  }

  /** Stops listening and waits for the batches in flight to commit; pending waits fail. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const entry of this.entries.values()) if (entry.retryTimer) clearTimeout(entry.retryTimer);
    await Promise.all([...this.entries.values()].map((entry) => entry.running));
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  /** A worker: the subscribers that read the stream type an append announced (all of them for an unknown one). */
  private wakeReaders(streamType: string): void {
    if (this.stopped) return;
    for (const entry of this.entries.values()) {
      if (!streamType || reads(entry, [streamType]) || entry.waiters.length > 0) this.schedule(entry);
    }
  }

  /** Runs again, now, every subscriber somebody in this process waits for. */
  private wakeWaiting(): void {
    if (this.stopped) return;
    for (const entry of this.entries.values()) if (entry.waiters.length > 0) this.schedule(entry);
  }

  /** Asks every subscriber to catch up now (coalesced with a batch already running). */
  wakeAll(): void {
    if (this.stopped) return;
    for (const entry of this.entries.values()) this.schedule(entry);
  }

  /**
   * Resolves once every projection reading a written stream has processed
   * that stream's events; throws ReadModelTimeoutError after the read-model
   * timeout. Starts those projections in this process right away (reactors
   * follow the append's NOTIFY in the workers; nobody waits for them, nor
   * for a `caughtUpOnRead` projection, whose reader calls `catchUp`).
   */
  async awaitProjections(written: readonly WrittenStream[]): Promise<void> {
    const targets = [...this.entries.values()]
      .filter((entry) => entry.kind === 'projection' && !entry.projection!.caughtUpOnRead)
      .map((entry) => ({ entry, position: lastPositionRead(entry, written) }));
    await this.awaitPositions(targets);
  }

  /**
   * Resolves once the projection has processed every event of its streams committed before the call (the head of
   * the log as this call sees it): what a `caughtUpOnRead` projection's reader calls before reading. Throws
   * ReadModelTimeoutError after the read-model timeout, like a write's wait.
   */
  async catchUp(name: string): Promise<void> {
    const entry = this.entry(name);
    const head = await this.headOf(entry.streamTypes === 'all' ? null : entry.streamTypes);
    await this.awaitPositions([{ entry, position: head }]);
  }

  /** The newest committed event's position among these stream types (all: null), or null for none. */
  private async headOf(streamTypes: readonly string[] | null): Promise<LogPosition | null> {
    const [head] = await queryRows<{ transaction_id: string; global_position: string }>(
      this.dataSource.manager,
      `select transaction_id::text, global_position::text from events where $1::text[] is null or stream_type = any($1::text[])
        order by events.transaction_id desc, events.global_position desc limit 1`,
      [streamTypes],
    );
    return head ? { transactionId: head.transaction_id, globalPosition: head.global_position } : null;
  }

  private async awaitPositions(wanted: readonly { entry: Entry; position: LogPosition | null }[]): Promise<void> {
    const targets = wanted.filter(
      (target): target is { entry: Entry; position: LogPosition } => target.position !== null && !reached(target.entry, target.position),
    );
    if (targets.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const waiters: Waiter[] = [];
    const waits = targets.map(
      ({ entry, position }) =>
        new Promise<void>((resolve) => {
          const waiter = { position, resolve };
          waiters.push(waiter);
          entry.waiters.push(waiter);
          this.schedule(entry);
        }),
    );
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const late = targets.filter(({ entry, position }) => !reached(entry, position)).map(({ entry }) => entry);
        for (const entry of late) entry.waiters = entry.waiters.filter((w) => !waiters.includes(w));
        reject(
          new ReadModelTimeoutError(
            late.map((e) => e.name),
            this.readModelTimeoutMs,
          ),
        );
      }, this.readModelTimeoutMs);
    });
    try {
      await Promise.race([Promise.all(waits), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs one batch of one subscriber; returns how many events it processed, or null if another runner holds it.
   * With `upTo`, no event past that position is applied (a replay stopping where another checkpoint stands).
   */
  async runBatch(name: string, batchSize = this.batchSize, upTo?: LogPosition): Promise<number | null> {
    const entry = this.entry(name);
    const queryRunner = this.dataSource.createQueryRunner();
    await queryRunner.connect();
    // The batch's own statements travel with BEGIN and COMMIT (simple protocol, our own literals only):
    // two round trips fewer per batch, which every waiting write pays.
    const client = (queryRunner as unknown as { databaseConnection: PoolClient }).databaseConnection;
    let open = false;
    try {
      // Read models are derived and their checkpoint commits with them: a crash that loses this
      // commit loses both together, so waiting for the WAL flush buys nothing but latency.
      // The checkpoint is read by a statement of its own, after the lock's: a statement reads the snapshot taken
      // when it began, so read together with the lock it could miss the checkpoint of a batch committed (and its
      // lock released) while the statement ran, and apply that batch again. Still one round trip.
      open = true;
      const [, locking, checkpoint] = (await client.query(
        `begin; select pg_try_advisory_xact_lock(hashtext(${literal(`projection:${name}`)})) as locked, set_config('synchronous_commit', 'off', true);
         select c.transaction_id::text, c.global_position::text from projection_checkpoints c where c.name = ${literal(name)}`,
      )) as unknown as [unknown, QueryResult<{ locked: boolean }>, QueryResult<{ transaction_id: string | null; global_position: string | null }>];
      if (!locking.rows[0].locked) return null;
      const state = checkpoint.rows[0];
      const from = state?.transaction_id ? { transactionId: state.transaction_id, globalPosition: state.global_position! } : ZERO_POSITION;
      this.remember(entry, from);
      // Read before writing anything: this transaction has no xid yet, so it cannot hold back the snapshot horizon.
      const read = await this.eventStore.readAll(from, batchSize, queryRunner.manager, entry.streamTypes === 'all' ? undefined : entry.streamTypes);
      const events = upTo ? read.filter((event) => comparePositions(event, upTo) <= 0) : read;
      if (events.length === 0) return 0;
      await entry.handle(events, queryRunner.manager);
      const last = events[events.length - 1];
      const position = { transactionId: digits(last.transactionId), globalPosition: digits(last.globalPosition) };
      await client.query(
        `insert into projection_checkpoints (name, transaction_id, global_position, updated_at)
         values (${literal(name)}, '${position.transactionId}'::xid8, ${position.globalPosition}, now())
         on conflict (name) do update set transaction_id = excluded.transaction_id,
           global_position = excluded.global_position, updated_at = excluded.updated_at;
         select pg_notify('${CHECKPOINTS_CHANNEL}', ${literal(`${name}|${position.transactionId}|${position.globalPosition}`)});
         commit`,
      );
      open = false;
      // What TypeORM's own commit would announce (the webhooks context wakes its dispatcher on it).
      await (queryRunner as unknown as { broadcaster: { broadcast(event: string): Promise<void> } }).broadcaster.broadcast('AfterTransactionCommit');
      this.remember(entry, position);
      return events.length;
    } finally {
      if (open) await client.query('rollback').catch(() => undefined);
      await queryRunner.release();
    }
  }

  /** Empties a projection's read model and replays it from position zero. Reactors are never replayed. */
  async rebuild(name: string, batchSize = Math.max(this.batchSize, 5000)): Promise<number> {
    const entry = this.entry(name);
    if (!entry.projection) throw new Error(`${name} is a reactor: reactors have side effects and are never replayed`);
    const projection = entry.projection;
    await this.dataSource.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
      await projection.reset(tx);
      await tx.query(
        `insert into projection_checkpoints (name, transaction_id, global_position, updated_at) values ($1, '0', 0, now())
         on conflict (name) do update set transaction_id = '0', global_position = 0, updated_at = now()`,
        [name],
      );
    });
    entry.checkpoint = ZERO_POSITION;
    // Replay up to the head of the log as it is now. A batch can find nothing for a moment while an older
    // transaction anywhere in the cluster is still open (the snapshot horizon): that is not the end.
    const head = await this.headOf(projection.streamTypes);
    let total = 0;
    while (head && !reached(entry, head)) {
      const applied = await this.runBatch(name, batchSize);
      total += applied ?? 0;
      if (!applied) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return total;
  }

  /** How far behind each subscriber is, for readiness and metrics. */
  async lag(): Promise<SubscriberLag[]> {
    const lags: SubscriberLag[] = [];
    for (const entry of this.entries.values()) {
      const [row] = await queryRows<{ behind: number; updated_at: Date | null }>(
        this.dataSource.manager,
        `select c.updated_at,
                (select count(*)::int from (select 1 from events e
                   where (e.transaction_id, e.global_position) > (coalesce(c.transaction_id, '0'::xid8), coalesce(c.global_position, 0))
                     and ($2::text[] is null or e.stream_type = any($2::text[]))
                   limit 10000) as pending) as behind
           from (select 1) as one
           left join projection_checkpoints c on c.name = $1`,
        [entry.name, entry.streamTypes === 'all' ? null : entry.streamTypes],
      );
      lags.push({ name: entry.name, kind: entry.kind, eventsBehind: row?.behind ?? 0, checkpointUpdatedAt: row?.updated_at ?? null });
    }
    return lags;
  }

  private add(entry: Omit<Entry, 'running' | 'again' | 'checkpoint' | 'waiters' | 'backoffMs' | 'retryTimer' | 'stalled'>): void {
    if (this.entries.has(entry.name)) throw new Error(`subscriber ${entry.name} is registered twice`);
    this.entries.set(entry.name, { ...entry, running: null, again: false, checkpoint: null, waiters: [], backoffMs: 1, retryTimer: null, stalled: false });
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`unknown projection ${name}`);
    return entry;
  }

  private schedule(entry: Entry): void {
    if (this.stopped) return;
    if (entry.running) {
      entry.again = true;
      return;
    }
    if (entry.kind === 'reactor') {
      // Nobody waits for a reactor: gather the appends of REACTOR_GATHER_MS into one batch.
      entry.retryTimer ??= setTimeout(() => {
        entry.retryTimer = null;
        this.launch(entry);
      }, REACTOR_GATHER_MS);
      return;
    }
    if (entry.retryTimer) {
      clearTimeout(entry.retryTimer);
      entry.retryTimer = null;
    }
    this.launch(entry);
  }

  private launch(entry: Entry): void {
    if (this.stopped || entry.running) return;
    entry.running = this.drain(entry).finally(() => {
      entry.running = null;
      if (this.stopped) return;
      if (entry.again) {
        entry.again = false;
        this.schedule(entry);
      } else if (entry.waiters.length > 0) {
        // Someone still waits: the lock is held elsewhere or an older transaction has not committed yet.
        entry.retryTimer = setTimeout(() => this.schedule(entry), entry.backoffMs);
        entry.backoffMs = Math.min(entry.backoffMs * 2, MAX_BACKOFF_MS);
      }
    });
  }

  private async drain(entry: Entry): Promise<void> {
    try {
      if (entry.stalled && entry.waiters.length > 0 && !(await this.horizonPassed(entry))) return;
      let applied: number | null;
      do {
        applied = await this.runBatch(entry.name);
        entry.stalled = !applied;
        if (applied) entry.backoffMs = 1;
      } while (applied === this.batchSize && !this.stopped);
    } catch (error) {
      // The batch rolled back; the checkpoint did not move, so the next wake retries the same events.
      this.options.logger?.error(`${entry.kind} ${entry.name} failed; will retry`, { error: String(error) });
      entry.backoffMs = MAX_BACKOFF_MS;
    }
  }

  /**
   * Whether a waited-for event can be readable now: its transaction is below
   * the oldest one still in flight. While it is not, a batch would find
   * nothing, so this one query stands in for a whole batch transaction.
   */
  private async horizonPassed(entry: Entry): Promise<boolean> {
    const [row] = await queryRows<{ xmin: string }>(this.dataSource.manager, `select events_horizon()::text as xmin`);
    const horizon = BigInt(row.xmin);
    return entry.waiters.some((waiter) => BigInt(waiter.position.transactionId) < horizon);
  }

  private onCheckpointAnnounced(payload: string): void {
    const [name, transactionId, globalPosition] = payload.split('|');
    const entry = this.entries.get(name);
    if (entry && transactionId && globalPosition) this.remember(entry, { transactionId, globalPosition });
  }

  private remember(entry: Entry, position: LogPosition): void {
    if (!entry.checkpoint || comparePositions(position, entry.checkpoint) > 0) entry.checkpoint = position;
    if (entry.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of entry.waiters) {
      if (reached(entry, waiter.position)) waiter.resolve();
      else still.push(waiter);
    }
    entry.waiters = still;
  }
}

/** The last position among the written streams this subscriber reads, or null if it reads none of them. */
function lastPositionRead(entry: Entry, written: readonly WrittenStream[]): LogPosition | null {
  let last: LogPosition | null = null;
  for (const { streamType, position } of written) {
    if (!reads(entry, [streamType])) continue;
    if (!last || comparePositions(position, last) > 0) last = position;
  }
  return last;
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

function reads(entry: Entry, streamTypes: readonly string[]): boolean {
  return entry.streamTypes === 'all' || streamTypes.some((type) => entry.streamTypes.includes(type));
}

function reached(entry: Entry, position: LogPosition): boolean {
  return entry.checkpoint !== null && comparePositions(entry.checkpoint, position) >= 0;
}
