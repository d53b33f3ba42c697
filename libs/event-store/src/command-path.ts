import { CommandMetadata, DomainEvent, Evolver, foldEvents } from '@billing/shared-kernel';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { RequestAnsweredBeforeError, StreamVersionConflictError } from './errors';
import { EventStore } from './event-store';
import { ProjectionRunner } from './projection-runner';
import { currentUnitOfWork, DecidedStream, DeferredTransaction, inTransaction, UnitOfWork, withinUnitOfWork } from './unit-of-work';
import { queryRows } from './sql';
import { EventMetadata, NewEvent, RecordedEvent, RequestAnswer, StreamAppend, StreamRef, streamKey, WrittenStream } from './types';

export interface LoadedStream<State> {
  readonly state: State;
  /** 0 when the stream does not exist. */
  readonly version: number;
}

/** What a command produced: the state after its events and the stream's new version (the ETag). */
export interface Decided<State, Event extends DomainEvent = DomainEvent> {
  readonly state: State;
  readonly version: number;
  readonly events: readonly Event[];
}

/**
 * What a command answers, the one result shape: the resource it wrote (its
 * id: a tax code's code, a provider's name), its stream's version after the
 * write (the ETag), and its state then (the read models are not awaited yet
 * inside a caller's unit of work, so a write answers from what it decided).
 */
export interface Written<State> {
  readonly id: string;
  readonly version: number;
  readonly state: State;
}

/** Who and when: the domain's time and ids, and the audit metadata stored with the events. */
export interface CommandContext {
  readonly meta: CommandMetadata;
  readonly metadata: EventMetadata;
}

/**
 * What a command does when another writer moved a stream it loaded (or took
 * a stream it creates) between its load and its append: `reject` answers 409
 * `version-conflict` (`stream-exists`); `{ retries }` decides again on a
 * fresh load, up to that many times, then answers the 409. A client's
 * If-Match is never retried: its command is based on what the client saw.
 */
export type ConflictPolicy = 'reject' | { readonly retries: number };

export interface CommandOptions {
  /** The version the client based the command on (If-Match): any other current version is a 409. */
  readonly expectedVersion?: number;
  /** Declared by each command; absent: `reject`. */
  readonly conflicts?: ConflictPolicy;
  /**
   * The stream was named just now (a fresh random id): there is nothing to
   * load, so the command decides on the initial state and creates the stream
   * (an existing one would be a `stream-exists` conflict).
   */
  readonly newStream?: boolean;
}

/**
 * The one command path. Every write runs as: load the streams the command
 * names (and any row its decision needs: a number counter, a claim) →
 * decide, purely → append what it decided to all of them atomically, each
 * with the version it was loaded at → apply the command's conflict policy →
 * answer only once the read models that follow the written streams show the
 * change (read-your-writes from any process). Inside a unit of work (see
 * unit-of-work.ts: an Idempotency-Key's stored response, the billing
 * engine's step) all of it runs in the unit's transaction. A command that
 * commits in steps (a payment: pending, the gateway, the outcome) takes one
 * pass through the path per step.
 */
export class CommandPath {
  constructor(
    private readonly dataSource: DataSource,
    private readonly eventStore: EventStore,
    private readonly runner: ProjectionRunner,
  ) {}

  /** Reads a stream's state outside any command (a check before a command, or a step's precondition). */
  async load<State, Event extends DomainEvent>(stream: StreamRef, evolver: Evolver<State, Event>, manager?: EntityManager): Promise<LoadedStream<State>> {
    return foldStream(await this.eventStore.readStream(stream, manager), evolver);
  }

  /** Reads several streams' states outside any command, in one statement (a reactor's batch of events). */
  async loadMany<State, Event extends DomainEvent>(streams: readonly StreamRef[], evolver: Evolver<State, Event>): Promise<LoadedStream<State>[]> {
    if (streams.length === 0) return [];
    return (await this.eventStore.readStreams(streams)).map((events) => foldStream(events, evolver));
  }

  /**
   * Reads streams ahead for the commands of the current unit of work, which stages its appends: each one's load in
   * the unit then makes no statement (see EventStore.preload). What a load answers is unchanged.
   */
  preload(streams: readonly StreamRef[]): Promise<void> {
    return this.eventStore.preload(streams);
  }

  /**
   * A command over one stream: load → decide → append. `decide` returns the
   * events (none: nothing is written). Its single append is one statement,
   * atomic without a transaction of its own.
   */
  handle<State, Event extends DomainEvent>(
    stream: StreamRef,
    evolver: Evolver<State, Event>,
    decide: (state: State) => readonly Event[],
    context: CommandContext,
    options: CommandOptions = {},
  ): Promise<Decided<State, Event>> {
    return this.execute(context, options.conflicts ?? 'reject', false, async (session) => {
      const { state, version } = options.newStream
        ? { state: evolver.initialState(), version: 0 }
        : await session.load(stream, evolver, options.expectedVersion);
      const events = decide(state);
      const after = foldEvents(evolver, events, state);
      return { state: after, version: events.length === 0 ? version : session.append(stream, events, after), events };
    });
  }

  /**
   * A command over several streams, or whose decision needs a read of its
   * own (a number counter, a uniqueness claim), in one transaction: `command`
   * loads and reads through the session, decides, and stages its events with
   * `session.append`; the path appends everything staged at once, with the
   * loaded versions, when `command` returns, and applies `conflicts` to the
   * whole command (a retry runs `command` again on a fresh transaction).
   */
  run<Result>(context: CommandContext, conflicts: ConflictPolicy, command: (session: CommandSession) => Promise<Result>): Promise<Result> {
    return this.execute(context, conflicts, true, command);
  }

  /**
   * Runs `work` as one unit of work: every command it runs through this path
   * (its own or another context's, e.g. the billing engine creating and
   * booking an invoice) and every statement on the default manager join one
   * transaction, which commits when `work` returns and rolls back when it
   * throws; the read models are awaited after the commit, unless the caller
   * collects what was written in `deferred` to await many units at once.
   * With `stageAppends` (a unit of many commands: the billing engine's
   * batch) their appends are held and written together with one statement
   * just before the commit; a stream another writer moved meanwhile then
   * fails the unit with its StreamVersionConflictError. Inside a unit of
   * work already, `work` joins it.
   */
  async atomically<Result>(
    work: (unit: UnitOfWork) => Promise<Result>,
    deferred?: WrittenStream[],
    { stageAppends = false }: { stageAppends?: boolean } = {},
  ): Promise<Result> {
    const current = currentUnitOfWork();
    if (current) return work(current);
    const queryRunner = this.dataSource.createQueryRunner();
    await queryRunner.connect();
    const unit = new UnitOfWork(queryRunner.manager, stageAppends);
    try {
      await queryRunner.startTransaction();
      const result = await withinUnitOfWork(unit, () => work(unit));
      if (unit.staged) unit.written.push(...(await this.eventStore.appendStaged(unit.manager, unit.staged)));
      unit.close();
      await queryRunner.commitTransaction();
      if (deferred) deferred.push(...unit.written);
      else await this.runner.awaitProjections(unit.written);
      return result;
    } catch (error) {
      unit.close();
      if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await queryRunner.release();
    }
  }

  /**
   * A request with an Idempotency-Key: `work` (the whole request, which answers what to store with the key) runs
   * as one unit of work that stages every append and begins a transaction only with its first statement of its own
   * (a locked counter, a claim, a savepoint); its answer then commits with its events, or neither does. A unit that
   * began none (a command that only loads streams and decides) is written by one statement grouped with the other
   * writes of the same turn (EventStore.appendAnswered); one that began one appends and stores the answer in it,
   * then commits. Throws RequestAnsweredBeforeError, with nothing committed, when another request with the key
   * stored its answer first. A stream another writer moved before the commit runs `work` again as the policy of
   * the command that appended to it allows (see UnitOfWork.allowRetries). The read models are awaited after the
   * commit.
   */
  async answered(work: () => Promise<RequestAnswer>): Promise<RequestAnswer> {
    if (currentUnitOfWork()) throw new Error('a keyed request runs in a unit of work of its own');
    for (let attempt = 0; ; attempt++) {
      let unit: UnitOfWork | undefined;
      try {
        const { answer, written } = await LazyTransaction.run(this.dataSource, async (transaction) => {
          unit = new UnitOfWork(transaction.manager, true, transaction);
          return this.commitAnswered(unit, transaction, await withinUnitOfWork(unit, work).finally(() => unit!.close()));
        });
        await this.runner.awaitProjections(written, await this.writeAhead(unit!.decided, unit!.staged!));
        return answer;
      } catch (error) {
        if (!(error instanceof StreamVersionConflictError) || unit === undefined || attempt >= unit.retriesOn(error.stream)) throw error;
      }
    }
  }

  /**
   * A keyed request's stored answer given again: waits, as its first answer did, for the read models of the streams
   * that the answer's transaction (null: unknown, nothing to wait for) wrote. The first answer may never have
   * waited (its process died after the commit) or have timed out waiting (503 read-model-timeout).
   */
  async awaitAnswered(transactionId: string | null): Promise<void> {
    if (transactionId === null) return;
    await this.runner.awaitProjections(await this.eventStore.writtenBy(transactionId));
  }

  private async commitAnswered(
    unit: UnitOfWork,
    transaction: LazyTransaction,
    answer: RequestAnswer,
  ): Promise<{ answer: RequestAnswer; written: readonly WrittenStream[] }> {
    const staged = unit.staged!;
    if (!transaction.begun) return { answer, written: await this.eventStore.appendAnswered(staged, answer) };
    const written = [...unit.written, ...(await this.eventStore.appendStaged(unit.manager, staged))];
    if (!(await this.eventStore.recordAnswer(answer, unit.manager))) throw new RequestAnsweredBeforeError();
    return { answer, written };
  }

  /**
   * Writes ahead the rows of the streams the commands decided (with the state after their events: see
   * ProjectionRunner.writeAhead), and answers the read models that the commit need not wait for: those that wrote
   * the row of every stream appended to.
   */
  private async writeAhead(decided: readonly DecidedStream[], appended: readonly { readonly append: StreamAppend }[]): Promise<ReadonlySet<string>> {
    if (decided.length === 0) return new Set();
    const ahead = await Promise.all(decided.map(({ stream, state, version }) => this.runner.writeAhead(stream, state, version)));
    const names = new Set(ahead.flatMap((names) => [...names]));
    // The last decision on each stream is the version it committed at.
    const last = new Map(decided.map((stream, index) => [streamKey(stream.stream), index]));
    for (const { append } of appended) {
      const index = last.get(streamKey(append.stream));
      for (const name of names) if (index === undefined || !ahead[index].has(name)) names.delete(name);
    }
    return names;
  }

  /** One pass per attempt: a fresh session, the command, the staged appends; a conflict retried as the policy says. */
  private async execute<Result>(
    context: CommandContext,
    conflicts: ConflictPolicy,
    transactional: boolean,
    command: (session: CommandSession) => Promise<Result>,
  ): Promise<Result> {
    const retries = conflicts === 'reject' ? 0 : conflicts.retries;
    for (let attempt = 0; ; attempt++) {
      let session: CommandSession | undefined;
      const pass = async (manager: EntityManager, lazy?: LazyTransaction) => {
        session = new CommandSession(manager, this.eventStore, context.meta, lazy);
        const result = await command(session);
        return { result, written: await session.commit(context.metadata, transactional) };
      };
      try {
        const { result, written } = !transactional
          ? await pass(this.dataSource.manager)
          : currentUnitOfWork()
            ? await inTransaction(this.dataSource, pass)
            : await LazyTransaction.run(this.dataSource, (lazy) => pass(lazy.manager, lazy));
        await this.awaitReadModels(written, session!, retries);
        return result;
      } catch (error) {
        if (!(error instanceof StreamVersionConflictError) || session === undefined || session.pinned(error.stream) || attempt >= retries) throw error;
      }
    }
  }

  /**
   * Read-your-writes: after the commit, wait for the read models, but for
   * those that wrote the decided streams' rows ahead. Inside a unit of work
   * nothing is committed yet, so the unit's owner waits after committing it;
   * a unit that stages its appends finds a conflict only at its commit, and
   * then retries as this command says.
   */
  private async awaitReadModels(written: readonly WrittenStream[], session: CommandSession, retries: number): Promise<void> {
    const unit = currentUnitOfWork();
    if (unit) {
      unit.written.push(...written);
      unit.decided.push(...session.decided.values());
      for (const { stream } of session.appended) unit.allowRetries(stream, session.pinned(stream) ? 0 : retries);
    } else if (written.length > 0) {
      await this.runner.awaitProjections(
        written,
        await this.writeAhead(
          [...session.decided.values()],
          session.appended.map((append) => ({ append })),
        ),
      );
    }
  }
}

/** One pass of a command: what it loaded (and at which version), and what it decided to append. */
export class CommandSession {
  private readonly loaded = new Map<string, number>();
  private readonly staged = new Map<string, StreamAppend>();
  /** The streams whose state after the command's events it gave (`append`'s `after`): their read-model rows may be written ahead. */
  readonly decided = new Map<string, DecidedStream>();
  /** The streams loaded with the client's If-Match. */
  private readonly clientVersions = new Set<string>();

  constructor(
    /** The command's connection (its transaction, for `run`): reads its decision needs go here. */
    readonly tx: EntityManager,
    private readonly eventStore: EventStore,
    private readonly meta: CommandMetadata,
    /** For `run` outside a unit of work: `tx` begins its transaction with its first statement. */
    private readonly lazy?: LazyTransaction,
  ) {}

  /**
   * True when `stream` was loaded with the client's If-Match: a conflict on it
   * is the client's, never retried. Another stream of the same command (the
   * customer whose credit a booking takes) is retried as the policy says; the
   * fresh pass checks the If-Match again.
   */
  pinned(stream: StreamRef): boolean {
    return this.clientVersions.has(streamKey(stream));
  }

  /** What the command appended, by stream. */
  get appended(): StreamAppend[] {
    return [...this.staged.values()].filter((append) => append.events.length > 0);
  }

  /** Loads and folds a stream; with `expectedVersion` (a client's If-Match) a stream at another version is a 409. */
  async load<State, Event extends DomainEvent>(stream: StreamRef, evolver: Evolver<State, Event>, expectedVersion?: number): Promise<LoadedStream<State>> {
    if (expectedVersion !== undefined) this.clientVersions.add(streamKey(stream));
    // Until the transaction has begun, a load needs none: the append checks the version it was loaded at.
    const reader = this.lazy && !this.lazy.begun ? undefined : this.tx;
    const loaded = expectVersion(stream, foldStream(await this.eventStore.readStream(stream, reader), evolver), expectedVersion);
    this.loaded.set(streamKey(stream), loaded.version);
    return loaded;
  }

  /** A read the decision needs, on the command's connection (in `run`, its transaction: a locked counter row stays locked until commit). */
  query<Row>(sql: string, parameters: readonly unknown[]): Promise<Row[]> {
    return queryRows<Row>(this.tx, sql, parameters);
  }

  /**
   * Stages decided events for `stream`, appended when the command returns
   * at the version the stream was loaded at (a stream never loaded must not
   * exist yet). Answers the stream's version after the commit. `after`, the
   * stream's state after these events, lets the read models that can write
   * its row ahead do so (see ProjectionRunner.writeAhead).
   */
  append(stream: StreamRef, events: readonly DomainEvent[], after?: unknown): number {
    const key = streamKey(stream);
    const before = this.staged.get(key);
    const base = before ?? { stream, expectedVersion: this.loaded.get(key) || ('no_stream' as const), events: [] };
    const next: StreamAppend = { ...base, events: [...base.events, ...toNewEvents(events, this.meta)] };
    this.staged.set(key, next);
    const version = (next.expectedVersion === 'no_stream' ? 0 : next.expectedVersion) + next.events.length;
    if (after === undefined || events.length === 0) this.decided.delete(key);
    else this.decided.set(key, { stream, state: after, version });
    return version;
  }

  /** Appends everything staged, atomically: in the command's transaction, or as one statement for a single stream. */
  async commit(metadata: EventMetadata, transactional: boolean): Promise<readonly WrittenStream[]> {
    const appends = this.appended;
    if (appends.length === 0) return [];
    if (!transactional && appends.length > 1) throw new Error('a command over several streams runs through CommandPath.run');
    // A `run` whose transaction never began (it only loaded streams) appends like `handle`: one statement for one stream.
    const inTransaction = transactional && (!this.lazy || this.lazy.begun);
    return (await this.eventStore.append(appends, metadata, inTransaction ? this.tx : undefined)).written;
  }
}

/**
 * The transaction of a `run` outside any unit of work, begun by the first statement sent on its manager (a read
 * the decision needs: a counter row to lock, a claim, an advisory lock), not before: a command that only loads
 * streams (loads need no transaction, the append checks their versions) and appends to one never opens one, and
 * its append is one statement, grouped with others (GroupedAppends). Loads after it began run in it. Commits when
 * the command's pass returns, rolls back when it throws; released either way.
 */
export class LazyTransaction implements DeferredTransaction {
  private started = false;

  private constructor(private readonly queryRunner: QueryRunner) {
    const query = queryRunner.query.bind(queryRunner);
    // Every statement on the manager goes through `query` until the connection is made (queryRows then uses the
    // connection, inside the transaction): the first one begins the transaction.
    queryRunner.query = (async (...args: Parameters<QueryRunner['query']>) => {
      if (!this.started) {
        this.started = true;
        queryRunner.query = query;
        // Unless this very statement is the START TRANSACTION of someone who began it on the runner itself.
        if (!queryRunner.isTransactionActive) await queryRunner.startTransaction();
      }
      return query(...args);
    }) as QueryRunner['query'];
  }

  get begun(): boolean {
    return this.started;
  }

  get manager(): EntityManager {
    return this.queryRunner.manager;
  }

  async begin(): Promise<void> {
    // START TRANSACTION goes through `query` like any statement: it marks the transaction begun.
    if (!this.queryRunner.isTransactionActive) await this.queryRunner.startTransaction();
  }

  static async run<Result>(dataSource: DataSource, pass: (transaction: LazyTransaction) => Promise<Result>): Promise<Result> {
    const transaction = new LazyTransaction(dataSource.createQueryRunner());
    const { queryRunner } = transaction;
    try {
      const result = await pass(transaction);
      if (queryRunner.isTransactionActive) await queryRunner.commitTransaction();
      return result;
    } catch (error) {
      if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await queryRunner.release();
    }
  }
}

/** The one If-Match rule: a stream at another version is a conflict; a missing one is the decider's to report (a 404). */
function expectVersion<State>(stream: StreamRef, loaded: LoadedStream<State>, expectedVersion: number | undefined): LoadedStream<State> {
  if (expectedVersion !== undefined && loaded.version > 0 && loaded.version !== expectedVersion) {
    throw new StreamVersionConflictError(stream, expectedVersion);
  }
  return loaded;
}

/** The one fold from stored events to state. */
export function foldStream<State, Event extends DomainEvent>(events: readonly RecordedEvent[], evolver: Evolver<State, Event>): LoadedStream<State> {
  const state = foldEvents(evolver, events as readonly DomainEvent[] as readonly Event[]);
  return { state, version: events.length === 0 ? 0 : events[events.length - 1].streamVersion };
}

/** Gives decided domain events their identity and time of occurrence. */
export function toNewEvents(events: readonly DomainEvent[], meta: CommandMetadata): NewEvent[] {
  return events.map((event) => ({
    eventId: meta.newId(),
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data,
    occurredAt: meta.now,
  }));
}
