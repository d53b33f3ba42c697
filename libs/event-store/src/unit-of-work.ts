import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager } from 'typeorm';
import { EventMetadata, RecordedEvent, StreamAppend, StreamRef, streamKey, WrittenStream } from './types';

/** An append a unit holds until it commits, with the metadata of the command that decided it. */
export interface StagedAppend {
  readonly append: StreamAppend;
  readonly metadata: EventMetadata;
}

/** Where a part of a unit (a savepoint) begins: what the part wrote and staged after it is undone with it. */
export interface UnitMark {
  readonly written: number;
  readonly staged: number;
  readonly aheads: number;
}

/** A stream a command wrote, with the state and version it left it at: what read models may write ahead (ProjectionRunner.writeAhead). */
export interface DecidedStream {
  readonly stream: StreamRef;
  readonly state: unknown;
  readonly version: number;
}

/** A unit's transaction that begins with its first statement (LazyTransaction), not when the unit opens. */
export interface DeferredTransaction {
  readonly begun: boolean;
  /** Begins it now, if it has not begun. */
  begin(): Promise<void>;
}

/**
 * A transaction that the whole of one command runs in, opened by whoever
 * must commit something together with the command's events (the HTTP edge,
 * for an Idempotency-Key and its stored response). While it is open, every
 * statement the command path and the read models issue on the default
 * manager runs on its connection instead of the pool, and the read models
 * are awaited by its owner after the commit rather than inside it.
 */
export class UnitOfWork {
  /** The streams the command wrote: what its owner awaits the read models for after committing. */
  readonly written: WrittenStream[] = [];
  /** The streams its commands decided on one stream each (`commands.handle`), for the read models to write ahead after the commit. */
  readonly decided: DecidedStream[] = [];
  /**
   * With `stageAppends` (the billing engine's batch): the appends of every
   * command in the unit, in order, held until the unit commits and then
   * written with one statement (EventStore.appendStaged); loads in the unit
   * see them (EventStore.readStream). Null: each append is written at once.
   */
  readonly staged: StagedAppend[] | null;
  private open = true;
  /** Inside `wholeOrNothing`: a part that fails fails the unit, so it takes no savepoint. */
  private partsFailTheUnit = false;
  /** Per staged stream, how many times a conflict on it at the unit's commit may run the unit again (its command's policy). */
  private readonly retries = new Map<string, number>();
  /** Streams read ahead for the unit's commands (EventStore.preload), by EventStore's load key: their stored events. */
  private readonly preloaded = new Map<string, readonly RecordedEvent[]>();
  /** The parts (savepoints) open now, outermost first; `taken` once the savepoint is in the transaction. */
  private readonly parts: Part[] = [];
  private partsMade = 0;
  /** The unit's connection while its statements take the open parts' savepoints first (see connection), and its own `query` to put back. */
  private hooked: { readonly client: PgConnection; readonly query: PgConnection['query'] } | null = null;

  constructor(
    readonly manager: EntityManager,
    stageAppends = false,
    /** Given: the unit's transaction begins with its first statement of its own (reads go to the pool until then). */
    readonly deferred?: DeferredTransaction,
  ) {
    this.staged = stageAppends ? [] : null;
  }

  /** Whether statements on the default manager go to the unit's connection: always, unless its transaction has not begun yet. */
  get connected(): boolean {
    return !this.deferred || this.deferred.begun;
  }

  /**
   * The conflict policy of a command whose appends the unit staged: a conflict on `stream` found at the unit's
   * commit may run the whole unit again this many times (the least any of its commands allows).
   */
  allowRetries(stream: StreamRef, retries: number): void {
    const key = streamKey(stream);
    this.retries.set(key, Math.min(this.retries.get(key) ?? retries, retries));
  }

  /** How many times a conflict on `stream` at the unit's commit may run the unit again: none for a stream no command declared. */
  retriesOn(stream: StreamRef): number {
    return this.retries.get(streamKey(stream)) ?? 0;
  }

  mark(): UnitMark {
    return { written: this.written.length, staged: this.staged?.length ?? 0, aheads: this.decided.length };
  }

  /** Forgets what was written and staged since `mark`: its savepoint rolled back. */
  rollbackTo(mark: UnitMark): void {
    this.written.splice(mark.written);
    this.staged?.splice(mark.staged);
    this.decided.splice(mark.aheads);
  }

  /**
   * Runs `work`, whose parts (commands) need no savepoint each: the caller
   * rolls the whole unit back if any of them fails (the billing batch's
   * bookings). Two round trips fewer per part.
   */
  async wholeOrNothing<Result>(work: () => Promise<Result>): Promise<Result> {
    this.partsFailTheUnit = true;
    try {
      return await work();
    } finally {
      this.partsFailTheUnit = false;
    }
  }

  /** Whether a part of the unit runs in a savepoint of its own (so that it can fail alone). */
  get partsRollBackAlone(): boolean {
    return !this.partsFailTheUnit;
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** After this, nothing (not even a callback that outlives the command) can reach the transaction. */
  close(): void {
    this.open = false;
    // The connection goes back to the pool as it came.
    if (this.hooked) this.hooked.client.query = this.hooked.query;
    this.hooked = null;
  }

  /**
   * Keeps streams read ahead for the unit's commands: a stream's load in the unit then makes no statement (see
   * EventStore.preload). Only a unit that stages its appends: nothing it decides reaches the log before its commit,
   * so what was read stays what the log holds for it, and the staged appends' expected versions check, at the
   * commit, that no other writer moved it meanwhile, as for any load.
   */
  keepPreloaded(streams: ReadonlyMap<string, readonly RecordedEvent[]>): void {
    if (!this.staged) throw new Error('only a unit that stages its appends keeps streams read ahead');
    for (const [key, events] of streams) this.preloaded.set(key, events);
  }

  /** The stored events of a stream read ahead (by EventStore's load key), or undefined for a stream not read ahead. */
  preloadedEvents(key: string): readonly RecordedEvent[] | undefined {
    return this.preloaded.get(key);
  }

  /**
   * Runs `work` as a part that fails alone: its savepoint is taken just before the part's first statement (any
   * statement on the unit's connection, the part's or a nested part's), so a part that makes none (a billing
   * step whose stream was read ahead and whose appends are staged) costs no round trip, and rolling it back is
   * forgetting what it staged. The unit's transaction has begun (its connection is made).
   */
  async partAlone<Result>(work: () => Promise<Result>): Promise<Result> {
    const client = this.connection();
    const part: Part = { name: `unit_part_${++this.partsMade}`, taken: false };
    this.parts.push(part);
    try {
      const result = await work();
      this.removePart(part);
      if (part.taken) await client.query(`release savepoint ${part.name}`);
      return result;
    } catch (error) {
      this.removePart(part);
      if (part.taken) await client.query(`rollback to savepoint ${part.name}; release savepoint ${part.name}`);
      throw error;
    }
  }

  private removePart(part: Part): void {
    this.parts.splice(this.parts.indexOf(part), 1);
  }

  /**
   * The unit's pg connection, its `query` wrapped once so that every statement on it (TypeORM's, queryRows's,
   * a nested part's) first takes the savepoints of the open parts not yet taken, outermost first, and is sent
   * once they are (pg 9 refuses a query asked while another runs). A savepoint that fails fails the statement.
   * Every caller in a unit uses the promise form of `query` (no callback, no cursor).
   */
  private connection(): PgConnection {
    if (this.hooked) return this.hooked.client;
    const client = (this.manager.queryRunner as unknown as { databaseConnection?: PgConnection } | undefined)?.databaseConnection;
    if (!client || !this.open) throw new Error('a part of a unit of work runs on the open unit’s connection');
    const query = client.query;
    const parts = this.parts;
    client.query = (...args: unknown[]) => {
      const due = parts.filter((part) => !part.taken);
      if (due.length === 0) return query.apply(client, args);
      for (const part of due) part.taken = true;
      return query.call(client, due.map((part) => `savepoint ${part.name}`).join('; ')).then(() => query.apply(client, args));
    };
    this.hooked = { client, query };
    return client;
  }
}

/** A part of a unit that fails alone: its savepoint's name, and whether the savepoint is in the transaction yet. */
interface Part {
  readonly name: string;
  taken: boolean;
}

/** What the unit uses of its pg connection (a PoolClient). */
interface PgConnection {
  query: (...args: unknown[]) => Promise<unknown>;
}

const ambient = new AsyncLocalStorage<UnitOfWork>();

/** Runs `work` with `unit` as the ambient unit of work of everything it awaits. */
export function withinUnitOfWork<Result>(unit: UnitOfWork, work: () => Promise<Result>): Promise<Result> {
  return ambient.run(unit, work);
}

/** Runs `work` outside any unit of work (work of its own that must not join the caller's transaction). */
export function outsideUnitOfWork<Result>(work: () => Promise<Result>): Promise<Result> {
  return ambient.exit(work);
}

/** The open unit of work of the current command, if its caller opened one. */
export function currentUnitOfWork(): UnitOfWork | undefined {
  const unit = ambient.getStore();
  return unit?.isOpen ? unit : undefined;
}

/** The current unit of work if statements go to its connection (see UnitOfWork.connected). */
export function connectedUnitOfWork(): UnitOfWork | undefined {
  const unit = currentUnitOfWork();
  return unit?.connected ? unit : undefined;
}

/**
 * Runs `work` in a transaction: a savepoint inside the ambient unit of work
 * (so a failing part rolls back alone, with what it wrote and staged, and the
 * unit commits once), else a transaction of its own.
 */
export async function inTransaction<Result>(dataSource: DataSource, work: (tx: EntityManager) => Promise<Result>): Promise<Result> {
  const unit = currentUnitOfWork();
  if (!unit) return dataSource.transaction(work);
  // A part needs the unit's transaction (a savepoint in it): begun first, or the part's own would be the unit's.
  await unit.deferred?.begin();
  const mark = unit.mark();
  try {
    return await (unit.partsRollBackAlone ? unit.partAlone(() => work(unit.manager)) : work(unit.manager));
  } catch (error) {
    unit.rollbackTo(mark);
    throw error;
  }
}
