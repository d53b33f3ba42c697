import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventRow, EventStore, foldStream, queryRows } from '@billing/event-store';
import { isUuid, NotFoundError, parseTimestamp, ValidationError } from '@billing/shared-kernel';
import { BoundedContext } from '../context/bounded-context';
import { BOUNDED_CONTEXTS } from '../context/context-wiring';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { invalidPageToken, keysetPage, Page, pageTokenCodec, parseLimit, readQuery, tokenField } from '../http/paging';
import { Versioned } from '../http/versioned';
import { AuditResources, HistoryResource } from './audit-resources';

/** One event as the public log shows it (GET /events, its export, history). */
export interface LogItem {
  readonly id: string;
  /** The event's place in its environment's hash chain: 1, 2, 3… in commit order. */
  readonly position: number;
  /** Its link in the hash chain: sha256 of the previous link's hash and its canonical serialisation (README, "Audit"). */
  readonly hash: string;
  readonly type: string;
  readonly resource: { readonly type: string; readonly id: string };
  readonly version: number;
  readonly occurredAt: string;
  readonly actor: string;
  readonly requestId: string | null;
  readonly correlationId: string;
  readonly causationId: string | null;
  readonly data: unknown;
}

/** What GET /events and its export select; all members combine with and. */
export interface LogFilter {
  readonly type?: string;
  readonly streamTypes?: readonly string[];
  readonly streamId?: string;
  /** occurredAt at or after. */
  readonly from?: Date;
  /** occurredAt strictly before. */
  readonly to?: Date;
}

export const LOG_FILTERS = ['type', 'resourceType', 'resourceId', 'from', 'to'] as const;
const PAGE_QUERY = [...LOG_FILTERS, 'limit', 'pageToken'] as const;
const HISTORY_QUERY = ['limit', 'pageToken'] as const;
export const MAX_LOG_LIMIT = 500;
export const DEFAULT_LOG_LIMIT = 100;
/** Rows per query of an export (and at most logPageMaxBytes of them): bounded memory whatever the environment's size. */
const EXPORT_BATCH = 1000;
/** Where a page of the log ended (`s`, its last position) and the digest of the filters it belongs to (`f`). */
const LOG_PAGE_TOKEN = pageTokenCodec({ s: tokenField.count, f: tokenField.text(16) });
const EXPORT_CHUNK_LINES = 32;

/** An event row as the log reads it: its place in the hash chain beside the event's own columns. */
interface LogRow extends Pick<
  EventRow,
  'event_id' | 'stream_type' | 'stream_id' | 'stream_version' | 'event_type' | 'schema_version' | 'data' | 'metadata' | 'occurred_at'
> {
  sequence: string;
  hash: string;
  /** An upper bound of the item's JSON: its data and metadata as Postgres writes them (with spaces), plus the other members. */
  size: number;
}

/**
 * The environment's events in commit order: the order of its hash chain
 * (event_chain.sequence, assigned at commit under the environment's lock),
 * so a page never skips an event whose transaction commits late: it gets a
 * sequence after everything already visible. Keyset paging on the sequence.
 * At most $8 rows, and no row after the one that takes the running size past
 * $9 bytes: Postgres stops sending before a page of large events does (the
 * page keeps the events within the bound; the next page starts after them).
 */
const LOG_PAGE = `
  select sequence, hash, event_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at, size
    from (
      select c.sequence::text, c.hash, e.event_id, e.stream_type, e.stream_id, e.stream_version, e.event_type, e.schema_version,
             e.data, e.metadata, e.occurred_at, s.size,
             sum(s.size) over (order by c.sequence rows between unbounded preceding and current row) as running
        from event_chain c
        join events e on e.event_id = c.event_id
        cross join lateral (select octet_length(e.data::text) + octet_length(e.metadata::text) + 512 as size) s
       where c.environment_id = $1 and c.sequence > $2
         and ($3::text is null or e.event_type = $3)
         and ($4::text[] is null or e.stream_type = any($4::text[]))
         and ($5::uuid is null or e.stream_id = $5)
         and ($6::timestamptz is null or e.occurred_at >= $6)
         and ($7::timestamptz is null or e.occurred_at < $7)
       order by c.sequence
       limit $8
    ) page
   where running - size < $9
   order by page.sequence::bigint`;

@Injectable()
export class EventLog {
  readonly resources: AuditResources;

  constructor(
    private readonly dataSource: DataSource,
    private readonly eventStore: EventStore,
    @Inject(BOUNDED_CONTEXTS) contexts: readonly BoundedContext[],
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.resources = new AuditResources(contexts);
  }

  /** GET /events: a page of the log, its query validated (unknown parameters are a 422). */
  async page(environmentId: string, query: Record<string, unknown> | undefined): Promise<Page<LogItem>> {
    const q = readQuery(query, PAGE_QUERY);
    const filter = this.filterOf(environmentId, q);
    return this.pageOf(environmentId, filter, parseLimit(q.limit, DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT), q.pageToken);
  }

  /** The filter of GET /events/export (the same filters, no paging), validated before the response starts. */
  exportFilter(environmentId: string, query: Record<string, unknown> | undefined): LogFilter {
    return this.filterOf(environmentId, readQuery(query, LOG_FILTERS));
  }

  /**
   * Every event the filter selects, one JSON line each, read in keyset
   * batches bounded by count and bytes: a batch is read only when the
   * consumer has taken the previous one (a pull-driven generator), so memory
   * stays one batch whatever the size.
   */
  async *exportLines(environmentId: string, filter: LogFilter): AsyncGenerator<string> {
    let after = 0;
    for (;;) {
      const rows = await this.rows(environmentId, filter, after, EXPORT_BATCH);
      if (rows.length === 0) return;
      // Chunks of a few dozen lines: small enough to stay out of V8's large-object space, which only a full collection frees.
      for (let start = 0; start < rows.length; start += EXPORT_CHUNK_LINES) {
        yield rows
          .slice(start, start + EXPORT_CHUNK_LINES)
          .map((row) => `${JSON.stringify(this.itemOf(row))}\n`)
          .join('');
      }
      after = Number(rows[rows.length - 1].sequence);
    }
  }

  /** GET /{path}/{id}/history: the resource's events (404 when it has none in this environment). */
  async history(environmentId: string, resource: HistoryResource, routeId: string, query: Record<string, unknown> | undefined): Promise<Page<LogItem>> {
    const q = readQuery(query, HISTORY_QUERY);
    const limit = parseLimit(q.limit, DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT);
    const streamId = resource.streamIdOf(environmentId, routeId);
    if (streamId === null) throw new NotFoundError(resource.type, routeId);
    const page = await this.pageOf(environmentId, { streamTypes: [resource.streamType], streamId }, limit, q.pageToken);
    if (page.items.length === 0 && q.pageToken === undefined) throw new NotFoundError(resource.type, routeId);
    return page;
  }

  /**
   * The resource as it was at `asOf`: its stream's view folded over its
   * events (upcast) up to the last one that occurred at or before that
   * instant. 404 when none had, or when the view is absent at that point.
   */
  async asOf(environmentId: string, resource: HistoryResource, routeId: string, asOf: Date): Promise<Versioned<unknown>> {
    const streamId = resource.streamIdOf(environmentId, routeId);
    if (streamId === null) throw new NotFoundError(resource.type, routeId);
    const events = await this.eventStore.readStream({ environmentId, streamType: resource.streamType, streamId });
    const until = events.findIndex((event) => event.occurredAt.getTime() > asOf.getTime());
    const past = until < 0 ? events : events.slice(0, until);
    if (past.length === 0) throw new NotFoundError(resource.type, routeId);
    if (!resource.view) throw new NotFoundError(resource.type, routeId);
    const { state, version } = foldStream(past, resource.view.evolver);
    const view = resource.view.toView(state);
    if (view === null || view === undefined) throw new NotFoundError(resource.type, routeId);
    if (!resource.alongside) return new Versioned(view, version);
    const { streamType, streamIdOf, evolver, apply } = resource.alongside;
    const related = (await this.eventStore.readStream({ environmentId, streamType, streamId: streamIdOf(environmentId) })).filter(
      (event) => event.occurredAt.getTime() <= asOf.getTime(),
    );
    return new Versioned(apply(view, foldStream(related, evolver).state), version);
  }

  private filterOf(environmentId: string, q: Partial<Record<(typeof LOG_FILTERS)[number], string>>): LogFilter {
    let streamTypes: readonly string[] | undefined;
    if (q.resourceType !== undefined) {
      streamTypes = this.resources.streamTypesOf(q.resourceType);
      if (!streamTypes) throw ValidationError.at('/query/resourceType', `must be one of ${this.resources.publicTypeNames.join(', ')}`);
    }
    let streamId: string | undefined;
    if (q.resourceId !== undefined) {
      const mapped =
        q.resourceType !== undefined
          ? this.resources.streamIdOf(q.resourceType, environmentId, q.resourceId)
          : isUuid(q.resourceId)
            ? q.resourceId.toLowerCase()
            : null;
      if (mapped === null)
        throw ValidationError.at(
          '/query/resourceId',
          q.resourceType === undefined ? 'must be a uuid (a stream id) without resourceType' : `is not an id of a ${q.resourceType}`,
        );
      streamId = mapped;
    }
    if (q.type !== undefined && (q.type.length === 0 || q.type.length > 200)) throw ValidationError.at('/query/type', 'must be an event type name');
    return { type: q.type, streamTypes, streamId, from: instant('from', q.from), to: instant('to', q.to) };
  }

  private async pageOf(environmentId: string, filter: LogFilter, limit: number, pageToken: string | undefined): Promise<Page<LogItem>> {
    const bound = filterKey(filter);
    let after = 0;
    if (pageToken !== undefined) {
      const token = LOG_PAGE_TOKEN.decode(pageToken);
      if (token.f !== bound) throw invalidPageToken('belongs to other filters (a page token is bound to the filters it was returned with)');
      after = token.s;
    }
    const rows = await this.rows(environmentId, filter, after, limit + 1);
    return keysetPage(rows, {
      limit,
      codec: LOG_PAGE_TOKEN,
      key: (row) => ({ s: Number(row.sequence), f: bound }),
      item: (row) => this.itemOf(row),
      size: (row) => row.size,
      maxBytes: this.config.logPageMaxBytes,
    });
  }

  private rows(environmentId: string, filter: LogFilter, after: number, limit: number): Promise<LogRow[]> {
    return queryRows<LogRow>(this.dataSource.manager, LOG_PAGE, [
      environmentId,
      after,
      filter.type ?? null,
      filter.streamTypes ?? null,
      filter.streamId ?? null,
      filter.from ?? null,
      filter.to ?? null,
      limit,
      this.config.logPageMaxBytes,
    ]);
  }

  private itemOf(row: LogRow): LogItem {
    const current = this.eventStore.upcast(row.stream_type, { type: row.event_type, schemaVersion: row.schema_version, data: row.data });
    return {
      id: row.event_id,
      position: Number(row.sequence),
      hash: row.hash,
      type: current.type,
      resource: { type: this.resources.publicTypeOf(row.stream_type), id: row.stream_id },
      version: row.stream_version,
      occurredAt: row.occurred_at.toISOString(),
      actor: row.metadata.actor,
      requestId: row.metadata.requestId ?? null,
      correlationId: row.metadata.correlationId,
      causationId: row.metadata.causationId ?? null,
      data: this.resources.publicData(row.stream_type, current.type, current.data),
    };
  }
}

/** A date-time query parameter (RFC 3339 with a zone, or a date: midnight UTC); else a 422 at /query/<name>. */
export function instant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = parseTimestamp(value);
  if (!parsed) throw ValidationError.at(`/query/${name}`, 'must be an RFC 3339 date-time with a zone (e.g. 2026-01-15T10:00:00Z) or a date');
  return parsed;
}

/** What a page token is bound to: a digest of the filters. */
function filterKey(filter: LogFilter): string {
  const canonical = JSON.stringify([
    filter.type ?? null,
    filter.streamTypes ?? null,
    filter.streamId ?? null,
    filter.from?.toISOString() ?? null,
    filter.to?.toISOString() ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}
