import { DataSource, EntityManager } from 'typeorm';
import { StreamVersionConflictError } from './errors';
import { queryRows } from './sql';
import { inTransaction } from './unit-of-work';
import { AppendResult, EventMetadata, LogPosition, RecordedEvent, StoredEvent, StreamAppend, StreamRef, Upcaster, WrittenStream } from './types';

export const EVENTS_CHANNEL = 'billing_events';

interface EventRow {
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

const EVENT_COLUMNS = `global_position::text, transaction_id::text, event_id, environment_id, stream_type, stream_id,
  stream_version, event_type, schema_version, data, metadata, occurred_at, coalesce(recorded_at, occurred_at) as recorded_at`;

/**
 * Claims the stream's next version and inserts its events in one statement
 * (one round trip, atomic on its own). The claim is an update guarded by the
 * expected version (or an insert that must not collide, for a new stream), so
 * two writers can never both succeed from the same version; when the claim
 * fails nothing is inserted. NOTIFY (with the stream type, so only the
 * subscribers that read it wake) is delivered at commit, so listeners never
 * wake before the events are visible.
 */
const APPEND_EVENTS = (claim: string) => `
  with claimed as (${claim}),
  inserted as (
    insert into events (event_id, environment_id, stream_type, stream_id, stream_version,
                        event_type, schema_version, data, metadata, occurred_at, recorded_at)
    select e.event_id, $1, $2, $3, e.stream_version, e.event_type, e.schema_version, e.data, $6::jsonb, e.occurred_at, $13::timestamptz
      from unnest($7::uuid[], $8::int[], $9::text[], $10::int[], $11::jsonb[], $12::timestamptz[])
           as e(event_id, stream_version, event_type, schema_version, data, occurred_at)
     where exists (select 1 from claimed)
    returning global_position, transaction_id)
  select (select count(*)::int from claimed) as claimed, $5::int as expected_version,
         (select max(global_position)::text from inserted) as global_position,
         (select min(transaction_id::text) from inserted) as transaction_id,
         (select pg_notify('${EVENTS_CHANNEL}', $2) from inserted limit 1) as notified`;

const CREATE_STREAM = APPEND_EVENTS(
  `insert into streams (environment_id, stream_type, stream_id, version) values ($1, $2, $3, $4) on conflict do nothing returning 1`,
);
const EXTEND_STREAM = APPEND_EVENTS(
  `update streams set version = $4 where environment_id = $1 and stream_type = $2 and stream_id = $3 and version = $5 returning 1`,
);

/**
 * Append-only event log in Postgres with optimistic concurrency per stream.
 * Events written with an older schema version are upcast when read, by the
 * upcaster the stream's bounded context registered.
 */
export class EventStore {
  private readonly upcasters = new Map<string, Upcaster>();

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

  async readStream(stream: StreamRef, manager: EntityManager = this.dataSource.manager): Promise<RecordedEvent[]> {
    const rows = await queryRows<EventRow>(
      manager,
      `select ${EVENT_COLUMNS} from events
        where environment_id = $1 and stream_type = $2 and stream_id = $3
        order by stream_version`,
      [stream.environmentId, stream.streamType, stream.streamId],
    );
    return rows.map((row) => this.toRecordedEvent(row));
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
   * single stream is one statement; several share a transaction (the given
   * one, or a new one).
   */
  async append(appends: readonly StreamAppend[], metadata: EventMetadata, manager?: EntityManager): Promise<AppendResult> {
    if (manager) return this.appendWithin(manager, appends, metadata);
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
