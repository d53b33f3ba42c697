import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { EVENTS_CHANNEL, EventStore } from './event-store';
import { Projection } from './projection';
import { queryRows } from './sql';
import { comparePositions, LogPosition, ZERO_POSITION } from './types';

export interface ProjectionRunnerOptions {
  readonly batchSize?: number;
  /** Fallback poll when no NOTIFY arrives (a lost connection, another process's writes). */
  readonly pollIntervalMs?: number;
  readonly logger?: { error(message: string, meta?: unknown): void; warn(message: string, meta?: unknown): void };
}

interface Waiter {
  readonly position: LogPosition;
  readonly resolve: (caughtUp: boolean) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Runs projections over the global log. Each projection advances in batches;
 * a batch holds a transaction-scoped advisory lock on the projection's name,
 * so across any number of processes exactly one runner is active per
 * projection and the others skip. Woken by LISTEN/NOTIFY, with polling as the
 * fallback.
 */
export class ProjectionRunner {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly loops = new Map<string, { running: Promise<void> | null; again: boolean }>();
  private readonly checkpoints = new Map<string, LogPosition>();
  private readonly projections: Projection[] = [];
  private waiters: Waiter[] = [];
  private listener: Client | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private waiterPollTimer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    private readonly dataSource: DataSource,
    private readonly eventStore: EventStore,
    projections: readonly Projection[] = [],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    for (const projection of projections) this.register(projection);
  }

  /** Adds a projection; bounded contexts register theirs before the runner starts. */
  register(projection: Projection): void {
    if (this.loops.has(projection.name)) throw new Error(`projection ${projection.name} is registered twice`);
    this.projections.push(projection);
    this.loops.set(projection.name, { running: null, again: false });
  }

  get projectionNames(): string[] {
    return this.projections.map((p) => p.name);
  }

  /** Starts catching up and listening. `listenUrl` is the database URL for the LISTEN connection. */
  async start(listenUrl: string): Promise<void> {
    this.stopped = false;
    await this.ensureCheckpointRows();
    this.listener = new Client({ connectionString: listenUrl, application_name: 'billing-projector-listen' });
    this.listener.on('notification', () => this.wake());
    this.listener.on('error', (error) => this.options.logger?.warn('projection listener connection failed; polling continues', { error: String(error) }));
    await this.listener.connect();
    await this.listener.query(`listen ${EVENTS_CHANNEL}`);
    this.pollTimer = setInterval(() => this.wake(), this.pollIntervalMs);
    this.pollTimer.unref();
    this.wake();
  }

  /** Stops listening and waits for the batches in flight to commit. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await Promise.all([...this.loops.values()].map((loop) => loop.running));
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters = [];
    this.stopWaiterPoll();
  }

  /** Asks every projection to catch up now (coalesced if one is already running). */
  wake(): void {
    if (this.stopped) return;
    for (const projection of this.projections) this.schedule(projection);
  }

  /**
   * Resolves true once every read-your-writes projection has processed
   * `position` (whichever process ran it), false after `timeoutMs`.
   */
  waitFor(position: LogPosition, timeoutMs = 5000): Promise<boolean> {
    if (this.caughtUp(position)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
      this.startWaiterPoll();
      this.wake();
    });
  }

  /** Runs one batch of one projection; returns how many events it applied, or null if another runner holds it. */
  async runBatch(projection: Projection): Promise<number | null> {
    const applied = await this.dataSource.transaction(async (tx) => {
      const [{ locked }] = await queryRows<{ locked: boolean }>(tx, `select pg_try_advisory_xact_lock(hashtext($1)) as locked`, [
        `projection:${projection.name}`,
      ]);
      if (!locked) return null;
      // Read models are derived and their checkpoint commits with them: a crash that loses this
      // commit loses both together, so waiting for the WAL flush buys nothing but latency.
      await tx.query(`set local synchronous_commit = off`);
      // Read before writing anything: this transaction has no xid yet, so it cannot hold back the snapshot horizon.
      const [checkpoint] = await queryRows<{ transaction_id: string; global_position: string }>(
        tx,
        `select transaction_id::text, global_position::text from projection_checkpoints where name = $1`,
        [projection.name],
      );
      const from = checkpoint
        ? { transactionId: checkpoint.transaction_id, globalPosition: checkpoint.global_position }
        : ZERO_POSITION;
      this.remember(projection.name, from);
      const events = await this.eventStore.readAll(from, this.batchSize, tx);
      if (events.length === 0) return 0;
      for (const event of events) await projection.apply(event, tx);
      const last = events[events.length - 1];
      await tx.query(
        `insert into projection_checkpoints (name, transaction_id, global_position, updated_at)
         values ($1, $2::xid8, $3, now())
         on conflict (name) do update set transaction_id = excluded.transaction_id,
           global_position = excluded.global_position, updated_at = excluded.updated_at`,
        [projection.name, last.transactionId, last.globalPosition],
      );
      return { count: events.length, position: { transactionId: last.transactionId, globalPosition: last.globalPosition } };
    });
    if (applied === null || applied === 0) return applied;
    this.remember(projection.name, applied.position);
    return applied.count;
  }

  /** Empties a projection's read model and replays it from position zero. */
  async rebuild(name: string): Promise<void> {
    const projection = this.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`unknown projection ${name}`);
    await this.dataSource.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
      await projection.reset?.(tx);
      await tx.query(`update projection_checkpoints set transaction_id = '0', global_position = 0, updated_at = now() where name = $1`, [name]);
    });
    this.checkpoints.set(name, ZERO_POSITION);
    while ((await this.runBatch(projection)) !== 0) {
      /* keep going until caught up */
    }
  }

  private schedule(projection: Projection): void {
    const loop = this.loops.get(projection.name)!;
    if (loop.running) {
      loop.again = true;
      return;
    }
    loop.running = this.drain(projection).finally(() => {
      loop.running = null;
      if (loop.again && !this.stopped) {
        loop.again = false;
        this.schedule(projection);
      }
    });
  }

  private async drain(projection: Projection): Promise<void> {
    try {
      let applied: number | null;
      do {
        applied = await this.runBatch(projection);
      } while (applied === this.batchSize && !this.stopped);
    } catch (error) {
      // The batch rolled back; the checkpoint did not move, so the next wake retries the same events.
      this.options.logger?.error(`projection ${projection.name} failed; will retry`, { error: String(error) });
    }
  }

  private remember(name: string, position: LogPosition): void {
    const known = this.checkpoints.get(name);
    if (!known || comparePositions(position, known) > 0) this.checkpoints.set(name, position);
    this.settleWaiters();
  }

  private caughtUp(position: LogPosition): boolean {
    return this.projections
      .filter((p) => p.consistency === 'read-your-writes')
      .every((p) => {
        const checkpoint = this.checkpoints.get(p.name);
        return checkpoint !== undefined && comparePositions(checkpoint, position) >= 0;
      });
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    const pending: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (this.caughtUp(waiter.position)) {
        clearTimeout(waiter.timer);
        waiter.resolve(true);
      } else {
        pending.push(waiter);
      }
    }
    this.waiters = pending;
    if (pending.length === 0) this.stopWaiterPoll();
  }

  /** Another process may be the active runner: read its checkpoints while someone waits. */
  private startWaiterPoll(): void {
    if (this.waiterPollTimer) return;
    this.waiterPollTimer = setInterval(() => {
      void this.refreshCheckpoints().catch(() => undefined);
    }, 20);
    this.waiterPollTimer.unref();
  }

  private stopWaiterPoll(): void {
    if (this.waiterPollTimer) clearInterval(this.waiterPollTimer);
    this.waiterPollTimer = null;
  }

  private async refreshCheckpoints(): Promise<void> {
    const rows = await queryRows<{ name: string; transaction_id: string; global_position: string }>(
      this.dataSource.manager,
      `select name, transaction_id::text, global_position::text from projection_checkpoints where name = any($1)`,
      [this.projections.map((p) => p.name)],
    );
    for (const row of rows) this.remember(row.name, { transactionId: row.transaction_id, globalPosition: row.global_position });
  }

  private async ensureCheckpointRows(): Promise<void> {
    await this.dataSource.query(
      `insert into projection_checkpoints (name) select unnest($1::text[]) on conflict do nothing`,
      [this.projections.map((p) => p.name)],
    );
  }
}
