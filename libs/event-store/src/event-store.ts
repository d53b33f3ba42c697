import { DataSource, EntityManager } from 'typeorm';
import { StreamVersionConflictError } from './errors';
import { queryRows } from './sql';
import {
  AppendResult,
  EventMetadata,
  ExpectedVersion,
  LogPosition,
  RecordedEvent,
  StreamAppend,
  StreamRef,
} from './types';

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
}

const EVENT_COLUMNS = `global_position::text, transaction_id::text, event_id, environment_id, stream_type, stream_id,
  stream_version, event_type, schema_version, data, metadata, occurred_at`;

/**
 * Append-only event log in Postgres. Optimistic concurrency is decided on the
 * `streams` row: creating a stream is an insert that must not collide, and
 * appending is an update guarded by the expected version, so two writers can
 * never both succeed from the same version.
 */
export class EventStore {
  constructor(private readonly dataSource: DataSource) {}

  async readStream(stream: StreamRef, manager: EntityManager = this.dataSource.manager): Promise<RecordedEvent[]> {
    const rows = await queryRows<EventRow>(
      manager,
      `select ${EVENT_COLUMNS} from events
        where environment_id = $1 and stream_type = $2 and stream_id = $3
        order by stream_version`,
      [stream.environmentId, stream.streamType, stream.streamId],
    );
    return rows.map(toRecordedEvent);
  }

  /** Appends to one or more streams atomically; all succeed or none does. */
  async append(
    appends: readonly StreamAppend[],
    metadata: EventMetadata,
    manager?: EntityManager,
  ): Promise<AppendResult> {
    if (manager) return this.appendWithin(manager, appends, metadata);
    return this.dataSource.transaction((tx) => this.appendWithin(tx, appends, metadata));
  }

  /**
   * Reads committed events after `after` in (transaction id, position) order,
   * stopping below the oldest transaction still in flight: an event whose
   * transaction commits late is therefore never skipped.
   */
  async readAll(after: LogPosition, limit: number, manager: EntityManager = this.dataSource.manager): Promise<RecordedEvent[]> {
    const rows = await queryRows<EventRow>(
      manager,
      `select ${EVENT_COLUMNS} from events
        where (transaction_id, global_position) > ($1::xid8, $2::bigint)
          and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        order by transaction_id, global_position
        limit $3`,
      [after.transactionId, after.globalPosition, limit],
    );
    return rows.map(toRecordedEvent);
  }

  private async appendWithin(
    tx: EntityManager,
    appends: readonly StreamAppend[],
    metadata: EventMetadata,
  ): Promise<AppendResult> {
    const nextVersions: number[] = [];
    let lastPosition: LogPosition | null = null;
    for (const { stream, expectedVersion, events } of appends) {
      const nextVersion = expectedVersion === 'no_stream' ? events.length : expectedVersion + events.length;
      await this.claimVersion(tx, stream, expectedVersion, nextVersion);
      const firstVersion = nextVersion - events.length + 1;
      for (const [index, event] of events.entries()) {
        const [row] = await queryRows<{ global_position: string; transaction_id: string }>(
          tx,
          `insert into events (event_id, environment_id, stream_type, stream_id, stream_version,
             event_type, schema_version, data, metadata, occurred_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           returning global_position::text, transaction_id::text`,
          [
            event.eventId,
            stream.environmentId,
            stream.streamType,
            stream.streamId,
            firstVersion + index,
            event.type,
            event.schemaVersion,
            JSON.stringify(event.data),
            JSON.stringify(metadata),
            event.occurredAt,
          ],
        );
        lastPosition = { transactionId: row.transaction_id, globalPosition: row.global_position };
      }
      nextVersions.push(nextVersion);
    }
    // Delivered at commit, so listeners never wake before the events are visible.
    if (lastPosition) await tx.query(`select pg_notify($1, '')`, [EVENTS_CHANNEL]);
    return { nextVersions, lastPosition };
  }

  private async claimVersion(
    tx: EntityManager,
    stream: StreamRef,
    expectedVersion: ExpectedVersion,
    nextVersion: number,
  ): Promise<void> {
    const key = [stream.environmentId, stream.streamType, stream.streamId];
    const claimed =
      expectedVersion === 'no_stream'
        ? await queryRows(
            tx,
            `insert into streams (environment_id, stream_type, stream_id, version) values ($1, $2, $3, $4)
             on conflict do nothing returning 1`,
            [...key, nextVersion],
          )
        : await queryRows(
            tx,
            `update streams set version = $4
              where environment_id = $1 and stream_type = $2 and stream_id = $3 and version = $5
              returning 1`,
            [...key, nextVersion, expectedVersion],
          );
    if (claimed.length === 0) throw new StreamVersionConflictError(stream, expectedVersion);
  }
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    eventId: row.event_id,
    environmentId: row.environment_id,
    streamType: row.stream_type,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.event_type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    occurredAt: row.occurred_at,
    transactionId: row.transaction_id,
    globalPosition: row.global_position,
  };
}
