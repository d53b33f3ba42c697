import { DataSource } from 'typeorm';
import { BatchedLookup } from './batched-lookup';
import { ReadModelTimeoutError } from './errors';
import { EVENTS_CHANNEL, EventStore } from './event-store';
import { Listener } from './listener';
import { RebuildOptions, rebuildProjections } from './projection-rebuild';
import { queryRows } from './sql';
import { BatchRunner, CHECKPOINTS_CHANNEL, inBatch } from './subscriber-batch';
import { AheadRow, aheadWriter, Entry, lagOf, lastPositionRead, reached, reads, SubscriberLag, Waiter } from './subscriber-entry';
import { Projection, Reactor } from './subscriptions';
import { comparePositions, LogPosition, RecordedEvent, StreamRef, WrittenStream } from './types';

export interface ProjectionRunnerOptions {
  readonly batchSize?: number;
  /** Fallback poll for a worker when no NOTIFY arrives (a lost connection). */
  readonly pollIntervalMs?: number;
  /** How long a write waits for its read models before answering with an error. */
  readonly readModelTimeoutMs?: number;
  /** How far (in log positions) a batch may skip ahead over other streams' events (default SKIP_AHEAD_EVENTS; tests make it small). */
  readonly skipAheadEvents?: number;
  readonly logger?: { error(message: string, meta?: unknown): void; warn(message: string, meta?: unknown): void };
}

/** Between retries of a waited-for batch that made no progress; commits elsewhere wake it sooner (LISTEN). */
const MAX_BACKOFF_MS = 10;
/**
 * A subscriber nobody waits for gathers the appends of this long into one
 * batch: a batch costs four or five round trips whatever its size, and under
 * load gathering 25 ms instead of 5 took the statements per POST from 3.4 to
 * 2.8 (docs/BENCHMARKS.md) for at most 20 ms more before a notification is
 * queued. Waited-for batches (a write's read-your-writes, a `catchUp`) start at once.
 */
const GATHER_MS = 25;
/**
 * A runner that finds a subscriber's lock held by another process leaves it
 * to that one this long: the holder gets the same wakes and goes on with the
 * next batches itself, and a write waiting here is woken by the holder's
 * checkpoint announcement. Trying again at every append and every other
 * subscriber's announcement only made the processes take turns on the lock (three
 * processes billing 2 000 invoices: 2 297 batch transactions rolled back
 * beside 4 495 commits, against 480 in one process).
 * Should the holder die, its lock goes with its connection and this process
 * takes over after at most this long.
 */
const HELD_ELSEWHERE_MS = 250;

/**
 * Batches nobody in this process waits for (a worker following the log) take turns: one at a time, each for at
 * most BACKGROUND_TURN_MS before the next may begin beside it; the others queue and gather more events meanwhile.
 * Every subscriber is woken by the same append, and when all of them ran at once their Postgres backends crowded
 * the cores the API's requests need: `POST /invoices` evenly paced at 190/s, p99 53–98 ms with every batch at
 * once, 32–63 ms taking turns (docs/BENCHMARKS.md, "the worker beside the API"). The turn's bound keeps a slow batch (a
 * reactor rendering documents or calling a gateway) from holding back the others for longer.
 */
const BACKGROUND_TURN_MS = 20;

/**
 * A batch moves its checkpoint over the other streams' events (see `inBatch`) once at least this many lie between
 * its last event and the newest below the horizon: reading that many index entries each poll costs less than a
 * checkpoint commit each poll in every process.
 */
export const SKIP_AHEAD_EVENTS = 1000;

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
  private readonly skipAheadEvents: bigint;
  private readonly entries = new Map<string, Entry>();
  private readonly batches: BatchRunner;
  /** Per projection that writes ahead: its rows of one turn, written together. */
  private readonly aheads = new Map<string, BatchedLookup<AheadRow, never>>();
  private listener: Listener | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private runsContinuously = false;
  private stopped = false;
  /** Whether a background batch has the turn (BACKGROUND_TURN_MS), and the subscribers waiting for theirs. */
  private backgroundTurnTaken = false;
  private readonly backgroundQueue: Entry[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly eventStore: EventStore,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.readModelTimeoutMs = options.readModelTimeoutMs ?? 5000;
    this.skipAheadEvents = BigInt(options.skipAheadEvents ?? SKIP_AHEAD_EVENTS);
    this.batches = { dataSource, eventStore, skipAheadEvents: this.skipAheadEvents, remember: (entry, position) => this.remember(entry, position) };
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
    this.add({
      name: reactor.name,
      kind: 'reactor',
      streamTypes: reactor.streamTypes,
      ...(reactor.eventTypes ? { eventTypes: new Set(reactor.eventTypes) } : {}),
      handle: (events, tx) => reactor.react(events, tx),
    });
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
    // Every commit that appends events or moves a checkpoint may also release the snapshot horizon that holds
    // a waiting write back, so both wake whoever waits here; a worker also follows the log on every append.
    const listener = new Listener({
      url: listenUrl,
      channels: [CHECKPOINTS_CHANNEL, EVENTS_CHANNEL],
      applicationName: 'billing-projector-listen',
      onNotification: (message) => {
        if (message.channel === CHECKPOINTS_CHANNEL) this.onCheckpointAnnounced(message.payload ?? '');
        if (message.channel === EVENTS_CHANNEL && this.runsContinuously) this.wakeReaders(message.payload ?? '');
        else this.wakeWaiting();
      },
      // What was announced while it was lost: a worker looks at every subscriber, anyone waiting tries again.
      onRelistened: () => (this.runsContinuously ? this.wakeAll() : this.wakeWaiting()),
      onLost: (error) => this.options.logger?.warn('projection listener connection lost; listening again', { error }),
    });
    await listener.start();
    this.listener = listener;
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
    await this.listener?.stop();
    this.listener = null;
  }

  /**
   * A worker: the subscribers that act on what an append announced, `streamType:EventType,…` (every one for an
   * empty payload; every reader of the stream type when no event types follow it).
   */
  private wakeReaders(payload: string): void {
    if (this.stopped) return;
    const separator = payload.indexOf(':');
    const streamType = separator < 0 ? payload : payload.slice(0, separator);
    const eventTypes = separator < 0 ? null : payload.slice(separator + 1).split(',');
    for (const entry of this.entries.values()) {
      const actsOn =
        !streamType || (reads(entry, [streamType]) && (!entry.eventTypes || !eventTypes || eventTypes.some((type) => entry.eventTypes!.has(type))));
      if (actsOn || entry.waiters.length > 0) this.schedule(entry);
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
  async awaitProjections(written: readonly WrittenStream[], writtenAhead: ReadonlySet<string> = NONE): Promise<void> {
    const targets = [...this.entries.values()]
      .filter((entry) => entry.kind === 'projection' && !entry.projection!.caughtUpOnRead && !writtenAhead.has(entry.name))
      .map((entry) => ({ entry, position: lastPositionRead(entry, written) }));
    await this.awaitPositions(targets);
  }

  /**
   * After a command's commit: writes the rows of `stream` at `version` (its state `state`) of every projection that
   * writes ahead (Projection.writeAhead) and reads the stream, and answers the names of those whose row now shows
   * that version: the command need not wait for them. The rows of the commands that arrive in the same turn are
   * written together. A row the projection must render itself (null), or a write that fails (the projection
   * writes the row anyway), leaves the projection out: the command waits for it as usual.
   */
  async writeAhead(stream: StreamRef, state: unknown, version: number): Promise<ReadonlySet<string>> {
    const written = new Set<string>();
    for (const entry of this.entries.values()) {
      const ahead = entry.projection?.writeAhead;
      if (ahead?.streamType !== stream.streamType) continue;
      const row = ahead.row(stream, state, version);
      if (row === null) continue;
      const rows = (this.aheads.get(entry.name) ?? this.aheads.set(entry.name, aheadWriter(ahead, this.dataSource)).get(entry.name))!;
      try {
        await rows.load({ stream, version, row });
        written.add(entry.name);
      } catch (error) {
        this.options.logger?.warn(`${entry.name}: a row written ahead failed; waiting for the projection instead`, { error: String(error) });
      }
    }
    return written;
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
   * With `upTo`, no event past that position is applied (a replay stopping where another checkpoint stands), and a
   * batch that applied every one of its events up to there moves the checkpoint to `upTo` itself: that position may
   * be another stream's event (where a live checkpoint skipped ahead), which the subscriber's own pages never reach.
   */
  async runBatch(name: string, batchSize = this.batchSize, upTo?: LogPosition): Promise<number | null> {
    const entry = this.entry(name);
    return this.inBatch(entry, (page) => (upTo ? page.filter((event) => comparePositions(event, upTo) <= 0) : page), batchSize, upTo ?? 'head');
  }

  /** One batch transaction of one subscriber (subscriber-batch.ts): the events applied, or null when another runner holds it. */
  private inBatch(
    entry: Entry,
    select: (page: readonly RecordedEvent[], from: LogPosition) => readonly RecordedEvent[],
    pageSize?: number,
    ahead?: 'head' | LogPosition,
  ): Promise<number | null> {
    return inBatch(this.batches, entry, select, pageSize, ahead);
  }

  /**
   * Empties the read models of these projections and replays them from position zero up to the head of the log
   * as it is when the call begins; answers how many events it read. Reactors are never replayed.
   *
   * One pass over the log for all of them: pages of `pageSize` events in log order (keyset on the position), the
   * next page read while the current one is applied, each page applied by every projection at once, on a
   * connection of its own, as one batch: the same `applyBatch` and checkpointing as the live path (so a rebuild
   * makes the rows an incremental build makes), only with batches large enough that a projection folds each
   * row's events in memory and writes it once per page. Runners of the same projections may go on meanwhile: a
   * page waits for a batch holding a projection's lock and applies only what lies past its checkpoint.
   */
  async rebuild(names: string | readonly string[], options: RebuildOptions = {}): Promise<number> {
    const entries = (typeof names === 'string' ? [names] : names).map((name) => this.entry(name));
    const { dataSource, eventStore } = this;
    return rebuildProjections(
      entries,
      { dataSource, eventStore, headOf: (types) => this.headOf(types), inBatch: (entry, select) => this.inBatch(entry, select) },
      options,
    );
  }

  /** How far behind each subscriber is, for readiness and metrics. */
  async lag(): Promise<SubscriberLag[]> {
    const lags: SubscriberLag[] = [];
    for (const entry of this.entries.values()) lags.push(await lagOf(this.dataSource.manager, entry));
    return lags;
  }

  private add(entry: Omit<Entry, 'running' | 'again' | 'checkpoint' | 'waiters' | 'backoffMs' | 'retryTimer' | 'stalled' | 'heldElsewhereUntil'>): void {
    if (this.entries.has(entry.name)) throw new Error(`subscriber ${entry.name} is registered twice`);
    this.entries.set(entry.name, {
      ...entry,
      running: null,
      again: false,
      checkpoint: null,
      waiters: [],
      backoffMs: 1,
      retryTimer: null,
      stalled: false,
      heldElsewhereUntil: 0,
    });
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
    // Nobody in this process waits (a reactor, a projection read on demand, or one following other processes'
    // writes): gather the appends of GATHER_MS into one batch. A waiter arriving meanwhile launches it at once, unless
    // another process holds the subscriber: then the waiter is woken by that process's checkpoint announcement
    // (onCheckpointAnnounced), not by every other subscriber's.
    const heldElsewhere = entry.heldElsewhereUntil - Date.now();
    const delay = entry.waiters.length === 0 ? Math.max(GATHER_MS, heldElsewhere) : heldElsewhere;
    if (delay > 0) {
      entry.retryTimer ??= setTimeout(() => {
        entry.retryTimer = null;
        this.launch(entry);
      }, delay);
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
    const background = entry.waiters.length === 0;
    const queued = this.backgroundQueue.indexOf(entry);
    if (background && this.backgroundTurnTaken) {
      if (queued < 0) this.backgroundQueue.push(entry);
      return;
    }
    if (queued >= 0) this.backgroundQueue.splice(queued, 1);
    const endTurn = background ? this.takeBackgroundTurn() : () => undefined;
    entry.running = this.drain(entry).finally(() => {
      entry.running = null;
      endTurn();
      if (this.stopped) return;
      if (entry.again) {
        entry.again = false;
        this.schedule(entry);
      } else if (entry.waiters.length > 0) {
        // Someone still waits: the lock is held elsewhere or an older transaction has not committed yet.
        entry.retryTimer = setTimeout(() => {
          entry.retryTimer = null;
          this.schedule(entry);
        }, entry.backoffMs);
        entry.backoffMs = Math.min(entry.backoffMs * 2, MAX_BACKOFF_MS);
      }
    });
  }

  /** Takes the background turn; answers what ends it (at most BACKGROUND_TURN_MS later), letting the next queued subscriber in. */
  private takeBackgroundTurn(): () => void {
    this.backgroundTurnTaken = true;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.backgroundTurnTaken = false;
      const next = this.backgroundQueue.shift();
      if (next) this.launch(next);
    };
    const timer = setTimeout(end, BACKGROUND_TURN_MS);
    return end;
  }

  private async drain(entry: Entry): Promise<void> {
    try {
      if (entry.stalled && entry.waiters.length > 0 && !(await this.horizonPassed(entry))) return;
      let applied: number | null;
      do {
        applied = await this.runBatch(entry.name);
        entry.stalled = !applied;
        // A write waiting here tries again sooner: the holder's batch may end without an announcement (nothing new for it).
        if (applied === null) entry.heldElsewhereUntil = Date.now() + (entry.waiters.length > 0 ? GATHER_MS : HELD_ELSEWHERE_MS);
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
    if (!entry || !transactionId || !globalPosition) return;
    // The process that held it committed a batch: whoever still waits here may try again at once.
    entry.heldElsewhereUntil = 0;
    this.remember(entry, { transactionId, globalPosition });
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

const NONE: ReadonlySet<string> = new Set();
