import { CommandMetadata, DomainEvent, Evolver } from '@billing/shared-kernel';
import { DataSource, EntityManager } from 'typeorm';
import { StreamVersionConflictError } from './errors';
import { EventStore } from './event-store';
import { ProjectionRunner } from './projection-runner';
import { currentUnitOfWork, inTransaction, UnitOfWork, withinUnitOfWork } from './unit-of-work';
import { AppendResult, EventMetadata, NewEvent, RecordedEvent, StreamAppend, StreamRef, WrittenStream } from './types';

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

/** Who and when: the domain's time and ids, and the audit metadata stored with the events. */
export interface CommandContext {
  readonly meta: CommandMetadata;
  readonly metadata: EventMetadata;
}

export interface CommandOptions {
  /** The version the client based the command on (If-Match): any other current version is a 409. */
  readonly expectedVersion?: number;
  /**
   * The command may be decided again on fresh state when another writer got
   * there first (only without an expected version: a client's If-Match is
   * never overridden).
   */
  readonly retryOnConflict?: boolean;
  /**
   * The stream was named just now (a fresh random id): there is nothing to
   * load, so the command decides on the initial state and creates the stream
   * (an existing one would be a `stream-exists` conflict).
   */
  readonly newStream?: boolean;
}

/**
 * The one command path: load the stream and fold it, decide, append with the
 * version that was loaded, then answer only once the read models that follow
 * the written streams show the change (read-your-writes from any process).
 * Inside a unit of work (see unit-of-work.ts) all of it runs in the unit's
 * transaction.
 */
export class CommandPath {
  constructor(
    private readonly dataSource: DataSource,
    private readonly eventStore: EventStore,
    private readonly runner: ProjectionRunner,
  ) {}

  async load<State, Event extends DomainEvent>(stream: StreamRef, evolver: Evolver<State, Event>, manager?: EntityManager): Promise<LoadedStream<State>> {
    return foldStream(await this.eventStore.readStream(stream, manager), evolver);
  }

  /** Load → decide → append for one stream. `decide` returns the events (none: nothing is written). */
  async handle<State, Event extends DomainEvent>(
    stream: StreamRef,
    evolver: Evolver<State, Event>,
    decide: (state: State) => readonly Event[],
    context: CommandContext,
    options: CommandOptions = {},
  ): Promise<Decided<State, Event>> {
    const attempt = async (): Promise<Decided<State, Event> & { written: readonly WrittenStream[] }> => {
      const { state, version } = options.newStream
        ? { state: evolver.initialState(), version: 0 }
        : expectVersion(stream, await this.load(stream, evolver), options.expectedVersion);
      const events = decide(state);
      if (events.length === 0) return { state, version, events, written: [] };
      const result = await this.eventStore.append(
        [{ stream, expectedVersion: version === 0 ? 'no_stream' : version, events: toNewEvents(events, context.meta) }],
        context.metadata,
      );
      return { state: events.reduce(evolver.evolve, state), version: result.nextVersions[0], events, written: result.written };
    };
    let outcome: Awaited<ReturnType<typeof attempt>>;
    try {
      outcome = await attempt();
    } catch (error) {
      if (!(error instanceof StreamVersionConflictError) || !options.retryOnConflict || options.expectedVersion !== undefined) throw error;
      outcome = await attempt();
    }
    await this.awaitReadModels(outcome.written);
    return { state: outcome.state, version: outcome.version, events: outcome.events };
  }

  /**
   * For a command that needs more than one stream, or its own rows (a
   * number sequence), in one transaction: `work` loads and appends through
   * the session; the read models are awaited after the commit.
   */
  async transaction<Result>(work: (session: CommandSession) => Promise<Result>): Promise<Result> {
    const written: WrittenStream[] = [];
    const result = await inTransaction(this.dataSource, (tx) => work(new CommandSession(tx, this.eventStore, written)));
    await this.awaitReadModels(written);
    return result;
  }

  /**
   * Runs `work` as one unit of work: every command it runs through this path
   * (its own or another context's, e.g. the billing engine creating and
   * booking an invoice) and every statement on the default manager join one
   * transaction, which commits when `work` returns and rolls back when it
   * throws; the read models are awaited after the commit, unless the caller
   * collects what was written in `deferred` to await many units at once.
   * Inside a unit of work already, `work` joins it.
   */
  async atomically<Result>(work: (unit: UnitOfWork) => Promise<Result>, deferred?: WrittenStream[]): Promise<Result> {
    const current = currentUnitOfWork();
    if (current) return work(current);
    const queryRunner = this.dataSource.createQueryRunner();
    await queryRunner.connect();
    const unit = new UnitOfWork(queryRunner.manager);
    try {
      await queryRunner.startTransaction();
      const result = await withinUnitOfWork(unit, () => work(unit));
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
   * Read-your-writes: after the commit, wait for the read models. Inside a
   * unit of work nothing is committed yet, so the unit's owner waits after
   * committing it.
   */
  private async awaitReadModels(written: readonly WrittenStream[]): Promise<void> {
    const unit = currentUnitOfWork();
    if (unit) unit.written.push(...written);
    else await this.runner.awaitProjections(written);
  }
}

/** Loads and appends inside one command's transaction. */
export class CommandSession {
  constructor(
    readonly tx: EntityManager,
    private readonly eventStore: EventStore,
    private readonly written: WrittenStream[],
  ) {}

  /** Loads and folds a stream; with `expectedVersion` (a client's If-Match) a stream at another version is a 409. */
  async load<State, Event extends DomainEvent>(stream: StreamRef, evolver: Evolver<State, Event>, expectedVersion?: number): Promise<LoadedStream<State>> {
    return expectVersion(stream, foldStream(await this.eventStore.readStream(stream, this.tx), evolver), expectedVersion);
  }

  async append(appends: readonly StreamAppend[], metadata: EventMetadata): Promise<AppendResult> {
    const result = await this.eventStore.append(appends, metadata, this.tx);
    this.written.push(...result.written);
    return result;
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
  const state = events.reduce((current, event) => evolver.evolve(current, event as unknown as Event), evolver.initialState());
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
