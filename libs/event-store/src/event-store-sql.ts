import { jsonRowsFrom } from './sql';

/** The statements of the EventStore's appends and reads: one round trip each, claims and inserts together. */

/** Appends announce their stream types on it at commit (NOTIFICATION_PAYLOAD). */
export const EVENTS_CHANNEL = 'billing_events';

/**
 * What an append announces on EVENTS_CHANNEL at its commit, once per stream type: `streamType:EventType,EventType`
 * (its event types, each once), so that a worker wakes only the subscribers that act on them (Reactor.eventTypes).
 */
const NOTIFICATION_PAYLOAD = (streamType: string) => `${streamType} || ':' || string_agg(distinct event_type, ',' order by event_type)`;

export const EVENT_COLUMNS = `global_position::text, transaction_id::text, event_id, environment_id, stream_type, stream_id,
  stream_version, event_type, schema_version, data, metadata, occurred_at, coalesce(recorded_at, occurred_at) as recorded_at`;

/**
 * The log is read in (transaction id, position) order, so an append must not come from a transaction older than
 * the one of the stream's last append: its events would sort before ones they follow, and readers would fold the
 * stream out of order. That happens when a transaction takes its id (a row lock, a write) and loads the stream only
 * after a younger one appended to it and committed. Such an append fails its claim like one from a moved stream (a
 * version conflict: decided again on a fresh load, in a younger transaction).
 */
const ORDERED_CLAIM = (table: string) => `${table}.transaction_id <= pg_current_xact_id()`;

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
    returning global_position, transaction_id, event_type)
  select (select count(*)::int from claimed) as claimed, $5::int as expected_version,
         (select max(global_position)::text from inserted) as global_position,
         (select min(transaction_id::text) from inserted) as transaction_id,
         (select pg_notify('${EVENTS_CHANNEL}', ${NOTIFICATION_PAYLOAD('$2')}) from inserted having count(*) > 0) as notified`;

export const CREATE_STREAM = APPEND_EVENTS(
  `insert into streams (environment_id, stream_type, stream_id, version, transaction_id) values ($1, $2, $3, $4, pg_current_xact_id())
   on conflict do nothing returning 1`,
);
/** Only from the stream's version, and from a transaction no older than its last append's (see ORDERED_CLAIM). */
export const EXTEND_STREAM = APPEND_EVENTS(
  `update streams set version = $4, transaction_id = pg_current_xact_id()
    where environment_id = $1 and stream_type = $2 and stream_id = $3 and version = $5 and ${ORDERED_CLAIM('streams')} returning 1`,
);

/**
 * Several appends in one statement: every stream's version claimed (created,
 * or moved from the version its first append expected) and every event
 * inserted, only if all the claims succeed. When one does not: `answer` (in a
 * unit's transaction, which then rolls back) answers the claimed streams so
 * that the one another writer moved is named; `fail` (a group written outside
 * any transaction) fails the statement (events_group_moved(), SQLSTATE BL409),
 * so that no claim of it stays. One NOTIFY per stream type, at commit.
 */
export const appendSeveral = (whenMoved: 'answer' | 'fail') => `
  with wanted as (
    select * from unnest($1::uuid[], $2::text[], $3::uuid[], $4::int[], $5::int[]) as w(environment_id, stream_type, stream_id, expected, version)),
  created as (
    insert into streams (environment_id, stream_type, stream_id, version, transaction_id)
    select environment_id, stream_type, stream_id, version, pg_current_xact_id() from wanted where expected is null
    on conflict do nothing returning environment_id, stream_type, stream_id),
  extended as (
    update streams s set version = w.version, transaction_id = pg_current_xact_id() from wanted w
     where w.expected is not null and s.environment_id = w.environment_id and s.stream_type = w.stream_type
       and s.stream_id = w.stream_id and s.version = w.expected and ${ORDERED_CLAIM('s')}
    returning s.environment_id, s.stream_type, s.stream_id),
  claimed as (select * from created union all select * from extended),
  inserted as (
    insert into events (event_id, environment_id, stream_type, stream_id, stream_version,
                        event_type, schema_version, data, metadata, occurred_at, recorded_at)
    select e.event_id, e.environment_id, e.stream_type, e.stream_id, e.stream_version, e.event_type, e.schema_version, e.data, e.metadata,
           e.occurred_at, $16::timestamptz
      from unnest($6::uuid[], $7::uuid[], $8::text[], $9::uuid[], $10::int[], $11::text[], $12::int[], $13::jsonb[], $14::jsonb[], $15::timestamptz[])
           as e(event_id, environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at)
     where (select count(*) from claimed) = cardinality($1::uuid[])
    returning global_position, transaction_id, stream_type, event_type)
  select (select coalesce(json_agg(json_build_array(environment_id, stream_type, stream_id)), '[]'::json) from claimed) as claimed,
         (select coalesce(json_agg(json_build_object('streamType', stream_type, 'position',
                    json_build_object('transactionId', transaction_id, 'globalPosition', global_position))), '[]'::json)
            from (select stream_type, min(transaction_id::text) as transaction_id, max(global_position)::text as global_position
                    from inserted group by stream_type) last) as written,
         (select count(sent) from (select pg_notify('${EVENTS_CHANNEL}', ${NOTIFICATION_PAYLOAD('stream_type')}) as sent from inserted group by stream_type) types) as notified
         ${whenMoved === 'fail' ? GROUP_CHECKS : ''}`;

/**
 * Stores a keyed request's answer (`idempotency_keys`): a new row, or over one whose retention is over; nothing
 * (no row returned) when a live one is there.
 */
const answerUpsert = (rows: string) => `
    insert into idempotency_keys (environment_id, subject, key, fingerprint, method, path, status, headers, body, created_at, expires_at)
    ${rows}
    on conflict (environment_id, subject, key) do update
       set fingerprint = excluded.fingerprint, method = excluded.method, path = excluded.path, status = excluded.status,
           headers = excluded.headers, body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at,
           transaction_id = excluded.transaction_id
     where idempotency_keys.expires_at <= excluded.created_at
    returning 1`;
export const RECORD_ANSWER = answerUpsert(`values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`);
const ANSWER_COLUMNS =
  'environment_id uuid, subject text, key text, fingerprint text, method text, path text, status smallint, headers jsonb, body text, created_at timestamptz, expires_at timestamptz';

/**
 * A group's statement fails whole when one of its streams was moved (events_group_moved(), BL409) or one of its
 * keyed requests' answers cannot be stored because another request with the key stored one first
 * (request_answered_before(), BL412): the answers of its keyed requests ($17, `jsonRows`) commit with the events.
 */
const GROUP_CHECKS = `,
         (select events_group_moved() where (select count(*) from claimed) < cardinality($1::uuid[])) as moved,
         (select request_answered_before() where (select count(*) from answered) < jsonb_array_length($17::jsonb)) as answered_before`;
export const APPEND_STAGED = appendSeveral('answer');
export const APPEND_GROUP = appendSeveral('fail').replace(
  '  claimed as (',
  `  answered as (${answerUpsert(`select * from ${jsonRowsFrom(17, ANSWER_COLUMNS)}`)}),
  claimed as (`,
);
