import { isUuid } from '@billing/shared-kernel';
import { DataSource, EntityManager } from 'typeorm';
import { BatchedLookup } from './batched-lookup';
import { RequestAnsweredBeforeError, StreamVersionConflictError } from './errors';
import { APPEND_GROUP, APPEND_STAGED, CREATE_STREAM, EVENT_COLUMNS, EXTEND_STREAM, RECORD_ANSWER } from './event-store-sql';
import { GroupedAppends } from './grouped-appends';
import { jsonRows, queryRows } from './sql';
import {
  AppendResult,
  EventMetadata,
  LogPosition,
  RecordedEvent,
  RequestAnswer,
  StoredEvent,
  StreamAppend,
  streamKey,
  StreamRef,
  Upcaster,
  WrittenStream,
} from './types';
import { currentUnitOfWork, inTransaction, StagedAppend, UnitOfWork } from './unit-of-work';

export { EVENTS_CHANNEL } from './event-store-sql';
export interface EventRow {
  global_position: string;
  transaction_id: string;
  event_id: string;
  environment_id: string;
  stream_type: string;
  stream_id: string;
  stream_version: number;
  event_type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  occurred_at: Date;
  recorded_at: Date;
}

/**
 * Append-only event log in Postgres with optimistic concurrency per stream.
 * Events written with an older schema version are upcast when read, by the
 * upcaster the stream's bounded context registered.
 */
export class EventStore {
  private readonly upcasters = new Map<string, Upcaster>();
  private readonly grouped = new GroupedAppends(
    (append, metadata) => this.appendWithin(this.dataSource.manager, [append], metadata),
    (staged, answer) => this.appendAnsweredAlone(staged, answer),
    (staged, answers) => this.appendGroup(staged, answers),
  );
  /** Commands load streams concurrently (each PUT, each action): loads of the same moment share a statement. */
  private readonly streamReads = new BatchedLookup<StreamRef, { readonly key: string; readonly events: RecordedEvent[] }>(
    async (streams) => [...(await this.storedStreams(streams))].map(([key, events]) => ({ key, events })),
    { key: loadKey, row: (found) => found.key },
  );

  /** `realNow`: the real (base) clock, never an environment's test clock; it stamps each event's `recordedAt`. */
  constructor(
    private readonly dataSource: DataSource,
    private readonly realNow: () => Date = () => new Date(),
  ) {}

  /** One upcaster per stream type: it sees every stored event of that stream and returns the current shape. */
  registerUpcaster(streamType: string, upcaster: Upcaster): void {
    if (this.upcasters.has(streamType)) throw new Error(`stream ${streamType} has two upcasters`);
    this.upcasters.set(streamType, upcaster);
  }

  /** A stored event of `streamType` in its current shape (its stream's upcaster applied). */
  upcast(streamType: string, stored: StoredEvent): StoredEvent {
    const upcaster = this.upcasters.get(streamType);
    return upcaster ? upcaster(stored) : stored;
  }

  /** The stream's events; inside a unit of work that stages its appends, followed by those it staged. */
  async readStream(stream: StreamRef, manager: EntityManager = this.dataSource.manager): Promise<RecordedEvent[]> {
    const unit = currentUnitOfWork();
    const staged = unit?.staged;
    // A stream the unit creates had no events when it was decided, and it cannot have any the unit may build on: another
    // writer creating it meanwhile fails the unit at its commit (stream-exists). No read, then: in a billing batch this is
    // every invoice's booking, done while the batch holds the environment's number counter.
    if (staged?.some(({ append }) => append.expectedVersion === 'no_stream' && sameStream(append.stream, stream))) return stagedEvents(staged, stream);
    const preloaded = unit?.preloadedEvents(loadKey(stream));
    // A malformed id fails its own statement, never a shared one.
    const stored = preloaded
      ? [...preloaded]
      : manager === this.dataSource.manager && isUuid(stream.environmentId) && isUuid(stream.streamId)
        ? ((await this.streamReads.load(stream))?.events ?? [])
        : (
            await queryRows<EventRow>(
              manager,
              `select ${EVENT_COLUMNS} from events
                where environment_id = $1 and stream_type = $2 and stream_id = $3
                order by stream_version`,
              [stream.environmentId, stream.streamType, stream.streamId],
            )
          ).map((row) => this.toRecordedEvent(row));
    return staged ? [...stored, ...stagedEvents(staged, stream)] : stored;
  }

  /**
   * Several whole streams in one statement, each as `readStream` would answer it (in the order asked; what an
   * enclosing unit of work staged follows each). Malformed ids are Postgres's error for the whole call.
   */
  async readStreams(streams: readonly StreamRef[], manager: EntityManager = this.dataSource.manager): Promise<RecordedEvent[][]> {
    const byStream = await this.storedStreams(streams, manager);
    const staged = currentUnitOfWork()?.staged;
    return streams.map((stream) => {
      const stored = byStream.get(loadKey(stream)) ?? [];
      return staged ? [...stored, ...stagedEvents(staged, stream)] : stored;
    });
  }

  /**
   * Reads streams ahead, in one statement, for the commands of the current unit of work (one that stages its
   * appends): their loads in the unit then make no statement each (UnitOfWork.keepPreloaded). The billing batch
   * reads its claimed subscriptions so.
   */
  async preload(streams: readonly StreamRef[]): Promise<void> {
    const unit = currentUnitOfWork();
    if (!unit) throw new Error('streams are read ahead for a unit of work');
    const stored = await this.storedStreams(streams, unit.manager);
    unit.keepPreloaded(new Map(streams.map((stream) => [loadKey(stream), stored.get(loadKey(stream)) ?? []])));
  }

  /** The stored events of whole streams in one statement, by `loadKey` (streams without events absent). */
  private async storedStreams(streams: readonly StreamRef[], manager: EntityManager = this.dataSource.manager): Promise<Map<string, RecordedEvent[]>> {
    // A stream asked twice (or in another case) is read once: the join would answer its rows once per time asked.
    const distinct = [...new Map(streams.map((stream) => [loadKey(stream), stream])).values()];
    const byStream = new Map<string, RecordedEvent[]>();
    for (const recorded of await this.readStreamsUpTo(
      distinct.map((stream) => ({ ...stream, upToVersion: WHOLE_STREAM })),
      manager,
    )) {
      const key = loadKey(recorded);
      const found = byStream.get(key);
      if (found) found.push(recorded);
      else byStream.set(key, [recorded]);
    }
    return byStream;
  }

  /** Several streams, each up to a version, in one query: by stream, then version. */
  async readStreamsUpTo(
    streams: readonly (StreamRef & { readonly upToVersion: number })[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RecordedEvent[]> {
    if (streams.length === 0) return [];
    const rows = await queryRows<EventRow>(
      manager,
      `select ${EVENT_COLUMNS} from events
         join unnest($1::uuid[], $2::text[], $3::uuid[], $4::int[]) as wanted(wanted_environment, wanted_type, wanted_id, up_to)
           on environment_id = wanted_environment and stream_type = wanted_type and stream_id = wanted_id and stream_version <= up_to
        order by environment_id, stream_type, stream_id, stream_version`,
      [streams.map((s) => s.environmentId), streams.map((s) => s.streamType), streams.map((s) => s.streamId), streams.map((s) => s.upToVersion)],
    );
    return rows.map((row) => this.toRecordedEvent(row));
  }

  /**
   * Appends to one or more streams atomically; all succeed or none does. A
   * single stream is one statement (outside a unit of work, grouped with the
   * single-stream appends of the same turn: GroupedAppends); several share a
   * transaction (the given one, or a new one).
   */
  async append(appends: readonly StreamAppend[], metadata: EventMetadata, manager?: EntityManager): Promise<AppendResult> {
    const unit = currentUnitOfWork();
    if (unit?.staged) return stage(unit, appends, metadata);
    if (manager) return this.appendWithin(manager, appends, metadata);
    if (appends.length === 1 && !unit) return this.grouped.append(appends[0], metadata);
    if (appends.length === 1) return this.appendWithin(this.dataSource.manager, appends, metadata);
    return inTransaction(this.dataSource, (tx) => this.appendWithin(tx, appends, metadata));
  }

  /**
   * Reads committed events after `after` in (transaction id, position) order,
   * stopping below the oldest transaction of this database still in flight
   * (`events_horizon()`, see its migration): an event whose transaction
   * commits late is therefore never skipped. `streamTypes`
   * narrows the read to the streams a subscriber follows.
   */
  async readAll(
    after: LogPosition,
    limit: number,
    manager: EntityManager = this.dataSource.manager,
    streamTypes?: readonly string[],
  ): Promise<RecordedEvent[]> {
    const rows = await queryRows<EventRow>(
      manager,
      `select ${EVENT_COLUMNS} from events
        where (transaction_id, global_position) > ($1::xid8, $2::bigint)
          and transaction_id < events_horizon()
          and ($4::text[] is null or stream_type = any($4::text[]))
        order by events.transaction_id, events.global_position
        limit $3`,
      [after.transactionId, after.globalPosition, limit, streamTypes ?? null],
    );
    return rows.map((row) => this.toRecordedEvent(row));
  }

  /**
   * readAll's statement as one text of literals, after the position that `afterSql` selects (at most one row of
   * `transaction_id` xid8 and `global_position` bigint; none or nulls: the start of the log): for a batch that sends it in one round trip with
   * its BEGIN and lock (simple protocol). `recordedEvents` decodes its rows.
   */
  pageAfterSql(afterSql: string, limit: number, streamTypes?: readonly string[], horizonSql = 'events_horizon()'): string {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`not a page size: ${limit}`);
    const types = streamTypes?.map((type) => {
      if (!/^[a-z][a-z0-9-]*$/.test(type)) throw new Error(`not a stream type: ${type}`);
      return `'${type}'`;
    });
    return `select ${EVENT_COLUMNS} from events
        where (transaction_id, global_position) > (select coalesce(a.transaction_id, '0'::xid8), coalesce(a.global_position, 0) from (select 1) as one left join (${afterSql}) as a on true)
          and transaction_id < ${horizonSql}
          ${types ? `and stream_type in (${types.join(', ')})` : ''}
        order by events.transaction_id, events.global_position
        limit ${limit}`;
  }

  recordedEvents(rows: readonly EventRow[]): RecordedEvent[] {
    return rows.map((row) => this.toRecordedEvent(row));
  }

  /**
   * Writes what a unit of work staged, with one statement in its transaction
   * (APPEND_STAGED): each stream's appends together, at the version the first
   * expected. Throws StreamVersionConflictError, naming the stream, when
   * another writer moved one first (nothing is inserted; the unit rolls back).
   */
  async appendStaged(tx: EntityManager, staged: readonly StagedAppend[]): Promise<WrittenStream[]> {
    return this.appendSeveral(tx, staged, APPEND_STAGED);
  }

  /**
   * Appends of several commands outside any transaction (GroupedAppends), with one statement that commits on its
   * own: all of them, or none when another writer moved one of their streams (the statement fails, SQLSTATE BL409).
   */
  appendGroup(staged: readonly StagedAppend[], answers: readonly RequestAnswer[] = []): Promise<WrittenStream[]> {
    return this.appendSeveral(this.dataSource.manager, staged, APPEND_GROUP, [jsonRows(answers.map(answerRow))]);
  }

  /**
   * A keyed request's appends (staged by its unit of work, which began no transaction) and its answer, committed
   * together: grouped with the appends of the same turn (GroupedAppends, one statement), or alone. Throws
   * RequestAnsweredBeforeError, with nothing written, when another request with the key stored its answer first,
   * and StreamVersionConflictError when another writer moved one of the streams.
   */
  appendAnswered(staged: readonly StagedAppend[], answer: RequestAnswer): Promise<readonly WrittenStream[]> {
    return this.grouped.appendAnswered(staged, answer);
  }

  /** Stores a keyed request's answer, in `manager`'s transaction or alone; false when a live answer of the key is there. */
  /**
   * Where a committed transaction left each stream type it appended to: what a keyed request's replayed answer
   * waits for (its row records the transaction that committed it with the request's events).
   */
  async writtenBy(transactionId: string): Promise<WrittenStream[]> {
    const rows = await queryRows<{ stream_type: string; global_position: string }>(
      this.dataSource.manager,
      `select stream_type, max(global_position)::text as global_position from events where transaction_id = $1::xid8 group by stream_type`,
      [transactionId],
    );
    return rows.map((row) => ({ streamType: row.stream_type, position: { transactionId, globalPosition: row.global_position } }));
  }

  async recordAnswer(answer: RequestAnswer, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const row = answerRow(answer);
    const recorded = await queryRows(manager, RECORD_ANSWER, [
      row.environment_id,
      row.subject,
      row.key,
      row.fingerprint,
      row.method,
      row.path,
      row.status,
      JSON.stringify(row.headers),
      row.body,
      row.created_at,
      row.expires_at,
    ]);
    return recorded.length > 0;
  }

  /** A keyed request's appends and answer outside a group: one transaction (or the answer's statement alone). */
  private async appendAnsweredAlone(staged: readonly StagedAppend[], answer: RequestAnswer): Promise<readonly WrittenStream[]> {
    const recordIn = async (manager?: EntityManager) => {
      if (!(await this.recordAnswer(answer, manager))) throw new RequestAnsweredBeforeError();
    };
    if (staged.length === 0) {
      await recordIn();
      return [];
    }
    return this.dataSource.transaction(async (tx) => {
      const written = await this.appendStaged(tx, staged);
      await recordIn(tx);
      return written;
    });
  }

  private async appendSeveral(tx: EntityManager, staged: readonly StagedAppend[], sql: string, extra: readonly unknown[] = []): Promise<WrittenStream[]> {
    if (staged.length === 0) return [];
    const streams = new Map<string, { stream: StreamRef; expected: number | null; version: number }>();
    const events: { stream: StreamRef; version: number; event: StreamAppend['events'][number]; metadata: string }[] = [];
    for (const { append, metadata } of staged) {
      const key = streamKey(append.stream);
      const first = append.expectedVersion === 'no_stream' ? 0 : append.expectedVersion;
      const entry = streams.get(key) ?? { stream: append.stream, expected: append.expectedVersion === 'no_stream' ? null : first, version: first };
      const json = JSON.stringify(metadata);
      for (const event of append.events) events.push({ stream: append.stream, version: ++entry.version, event, metadata: json });
      streams.set(key, entry);
    }
    const wanted = [...streams.values()];
    const [row] = await queryRows<{ claimed: [string, string, string][]; written: WrittenStream[] }>(tx, sql, [
      wanted.map((w) => w.stream.environmentId),
      wanted.map((w) => w.stream.streamType),
      wanted.map((w) => w.stream.streamId),
      wanted.map((w) => w.expected),
      wanted.map((w) => w.version),
      events.map((e) => e.event.eventId),
      events.map((e) => e.stream.environmentId),
      events.map((e) => e.stream.streamType),
      events.map((e) => e.stream.streamId),
      events.map((e) => e.version),
      events.map((e) => e.event.type),
      events.map((e) => e.event.schemaVersion),
      events.map((e) => JSON.stringify(e.event.data)),
      events.map((e) => e.metadata),
      events.map((e) => e.event.occurredAt),
      this.realNow(),
      ...extra,
    ]);
    if (row.claimed.length < wanted.length) {
      const claimed = new Set(row.claimed.map(([environmentId, streamType, streamId]) => streamKey({ environmentId, streamType, streamId })));
      const moved = wanted.find((w) => !claimed.has(streamKey(w.stream)))!;
      throw new StreamVersionConflictError(moved.stream, moved.expected ?? 'no_stream');
    }
    return row.written;
  }

  private async appendWithin(tx: EntityManager, appends: readonly StreamAppend[], metadata: EventMetadata): Promise<AppendResult> {
    const nextVersions: number[] = [];
    const written: WrittenStream[] = [];
    const metadataJson = JSON.stringify(metadata);
    const recordedAt = this.realNow();
    for (const { stream, expectedVersion, events } of appends) {
      const nextVersion = expectedVersion === 'no_stream' ? events.length : expectedVersion + events.length;
      const firstVersion = nextVersion - events.length + 1;
      const [row] = await queryRows<{ claimed: number; global_position: string | null; transaction_id: string | null }>(
        tx,
        expectedVersion === 'no_stream' ? CREATE_STREAM : EXTEND_STREAM,
        [
          stream.environmentId,
          stream.streamType,
          stream.streamId,
          nextVersion,
          expectedVersion === 'no_stream' ? null : expectedVersion,
          metadataJson,
          events.map((e) => e.eventId),
          events.map((_e, index) => firstVersion + index),
          events.map((e) => e.type),
          events.map((e) => e.schemaVersion),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => e.occurredAt),
          recordedAt,
        ],
      );
      if (row.claimed === 0) throw new StreamVersionConflictError(stream, expectedVersion);
      nextVersions.push(nextVersion);
      if (row.global_position && row.transaction_id) {
        written.push({ streamType: stream.streamType, position: { transactionId: row.transaction_id, globalPosition: row.global_position } });
      }
    }
    return { nextVersions, written };
  }

  private toRecordedEvent(row: EventRow): RecordedEvent {
    const current = this.upcast(row.stream_type, { type: row.event_type, schemaVersion: row.schema_version, data: row.data });
    return {
      eventId: row.event_id,
      environmentId: row.environment_id,
      streamType: row.stream_type,
      streamId: row.stream_id,
      streamVersion: row.stream_version,
      type: current.type,
      schemaVersion: current.schemaVersion,
      data: current.data,
      metadata: row.metadata,
      occurredAt: row.occurred_at,
      recordedAt: row.recorded_at,
      transactionId: row.transaction_id,
      globalPosition: row.global_position,
    };
  }
}

/** A request's answer as its `idempotency_keys` row. */
function answerRow(answer: RequestAnswer) {
  return {
    environment_id: answer.environmentId,
    subject: answer.subject,
    key: answer.key,
    fingerprint: answer.fingerprint,
    method: answer.method,
    path: answer.path,
    status: answer.status,
    headers: answer.headers,
    body: answer.body,
    created_at: answer.createdAt,
    expires_at: answer.expiresAt,
  };
}

function sameStream(a: StreamRef, b: StreamRef): boolean {
  return a.streamId === b.streamId && a.streamType === b.streamType && a.environmentId === b.environmentId;
}

/**
 * Holds appends in the unit until it commits. Each must follow on what the
 * unit staged for its stream already (as loads in the unit see it); the
 * stored version the first one expects is checked when they are written.
 */
function stage(unit: UnitOfWork, appends: readonly StreamAppend[], metadata: EventMetadata): AppendResult {
  const nextVersions: number[] = [];
  for (const append of appends) {
    const before = unit.staged!.filter((staged) => sameStream(staged.append.stream, append.stream));
    if (before.length > 0) {
      const last = before[before.length - 1].append;
      const version = (last.expectedVersion === 'no_stream' ? 0 : last.expectedVersion) + last.events.length;
      if (append.expectedVersion !== version) throw new StreamVersionConflictError(append.stream, append.expectedVersion);
    }
    unit.staged!.push({ append, metadata });
    nextVersions.push((append.expectedVersion === 'no_stream' ? 0 : append.expectedVersion) + append.events.length);
  }
  return { nextVersions, written: [] };
}

/** The events a unit staged for `stream`, as a load in the unit sees them after the stored ones. */
function stagedEvents(staged: readonly StagedAppend[], stream: StreamRef): RecordedEvent[] {
  return staged
    .filter(({ append }) => sameStream(append.stream, stream))
    .flatMap(({ append, metadata }) => {
      const first = (append.expectedVersion === 'no_stream' ? 0 : append.expectedVersion) + 1;
      return append.events.map((event, index) => ({
        ...event,
        ...stream,
        streamVersion: first + index,
        metadata,
        recordedAt: event.occurredAt,
        // Not in the log yet: no position.
        transactionId: '0',
        globalPosition: '0',
      }));
    });
}

/** `stream_version` is an int: no stream goes beyond it. */
const WHOLE_STREAM = 2_147_483_647;

/** A stream's key for shared loads: ids are uuids, which Postgres prints in lower case whatever case was asked. */
function loadKey(stream: StreamRef): string {
  return `${stream.environmentId.toLowerCase()}/${stream.streamType}/${stream.streamId.toLowerCase()}`;
}
