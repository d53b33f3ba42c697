import { EntityManager } from 'typeorm';
import { DomainEvent, Evolver, foldEvents } from '@billing/shared-kernel';
import { jsonRows, jsonRowsFrom, queryRows } from './sql';
import { RecordedEvent } from './types';

/** One stream's events within a projection batch, and the state its table held before them (null: the stream begins here). */
export interface StreamBatch<State> {
  readonly environmentId: string;
  readonly id: string;
  readonly events: RecordedEvent[];
  readonly stored: State | null;
}

/**
 * For a projection that keeps each stream's folded state in a table
 * (`environment_id`, `id`, `state` columns; `table` is a constant of the
 * caller): the batch's events of one stream type grouped by stream, with the
 * stored state of the streams that began before the batch, read in one
 * statement.
 */
export async function streamBatches<State>(
  events: readonly RecordedEvent[],
  streamType: string,
  table: string,
  tx: EntityManager,
): Promise<StreamBatch<State>[]> {
  const streams = new Map<string, { environmentId: string; id: string; events: RecordedEvent[] }>();
  for (const event of events) {
    if (event.streamType !== streamType) continue;
    const key = `${event.environmentId}/${event.streamId}`;
    const stream = streams.get(key) ?? { environmentId: event.environmentId, id: event.streamId, events: [] };
    stream.events.push(event);
    streams.set(key, stream);
  }
  if (streams.size === 0) return [];
  const continued = [...streams.values()].filter((stream) => stream.events[0].streamVersion > 1);
  const stored = new Map<string, State>();
  if (continued.length > 0) {
    const rows = await queryRows<{ environment_id: string; id: string; state: State }>(
      tx,
      `select t.environment_id, t.id, t.state from ${table} t
         join unnest($1::uuid[], $2::uuid[]) as k(environment_id, id) on t.environment_id = k.environment_id and t.id = k.id`,
      [continued.map((s) => s.environmentId), continued.map((s) => s.id)],
    );
    for (const row of rows) stored.set(`${row.environment_id}/${row.id}`, row.state);
  }
  return [...streams.entries()].map(([key, stream]) => ({ ...stream, stored: stored.get(key) ?? null }));
}

/** A stream's latest state after a batch, and its version. */
export interface FoldedStream<State> {
  readonly environmentId: string;
  readonly id: string;
  readonly version: number;
  readonly state: State;
  /** When its latest event was appended, on the real clock. */
  readonly recordedAt: Date;
}

/**
 * streamBatches, each stream folded onto its stored state with `evolver`;
 * streams still absent after the batch (`status: 'none'`) are left out.
 */
export async function foldStreamBatches<State extends { readonly status: string }>(
  events: readonly RecordedEvent[],
  streamType: string,
  table: string,
  evolver: Evolver<State, DomainEvent>,
  tx: EntityManager,
): Promise<FoldedStream<State>[]> {
  const folded: FoldedStream<State>[] = [];
  for (const stream of await streamBatches<State>(events, streamType, table, tx)) {
    const state = foldEvents(evolver, stream.events, stream.stored ?? evolver.initialState());
    const last = stream.events[stream.events.length - 1];
    if (state.status !== 'none')
      folded.push({ environmentId: stream.environmentId, id: stream.id, version: last.streamVersion, state, recordedAt: last.recordedAt });
  }
  return folded;
}

/** One read-model row: a stream's latest state and view, its version, and the position of the event that made it exist. */
export interface ViewRow<State, View> {
  readonly environmentId: string;
  readonly id: string;
  /** The keyset of a new row; a row keeps the one it was inserted with. */
  readonly position: string;
  readonly version: number;
  readonly state: State;
  readonly view: View;
}

/** How one stream type is kept in its table: folded with the domain's evolver, shown by `toView` (null: nothing to show yet). */
export interface ViewTable<State, Event extends DomainEvent, View> {
  readonly table: string;
  readonly streamType: string;
  readonly evolver: Evolver<State, Event>;
  readonly toView: (state: State) => View | null;
}

/**
 * streamBatches, each stream folded onto its stored state, as the rows to
 * write: its latest state and view (streams with nothing to show are left
 * out), at the position of the event that made it showable.
 */
export async function viewRows<State, Event extends DomainEvent, View>(
  model: ViewTable<State, Event, View>,
  events: readonly RecordedEvent[],
  tx: EntityManager,
): Promise<ViewRow<State, View>[]> {
  const rows: ViewRow<State, View>[] = [];
  for (const stream of await streamBatches<State>(events, model.streamType, model.table, tx)) {
    const { state, position } = foldEvents(positioned(model), stream.events, { state: stream.stored ?? model.evolver.initialState(), position: null });
    const view = model.toView(state);
    if (view === null || position === null) continue;
    rows.push({ environmentId: stream.environmentId, id: stream.id, position, version: stream.events[stream.events.length - 1].streamVersion, state, view });
  }
  return rows;
}

/**
 * The table's evolver, also keeping the position of the event that made the
 * stream showable (`toView` not null): a fold with `foldEvents` gives the
 * latest state and that position at once.
 */
function positioned<State, Event extends DomainEvent, View>(
  model: ViewTable<State, Event, View>,
): Evolver<{ readonly state: State; readonly position: string | null }, RecordedEvent> {
  return {
    initialState: () => ({ state: model.evolver.initialState(), position: null }),
    evolve: ({ state, position }, event) => {
      const next = model.evolver.evolve(state, { type: event.type, schemaVersion: event.schemaVersion, data: event.data } as Event);
      return { state: next, position: position ?? (model.toView(next) === null ? null : event.globalPosition) };
    },
  };
}

/**
 * One statement for every row of a table with the columns (environment_id,
 * id, position, version, state, view): `position` stays that of the insert,
 * everything else becomes the latest. `table` is a constant of the caller.
 */
export async function upsertViewRows(table: string, rows: readonly ViewRow<unknown, unknown>[], tx: EntityManager): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into ${table} (environment_id, id, position, version, state, view)
     select * from ${jsonRowsFrom(1, 'environment_id uuid, id uuid, position bigint, version integer, state jsonb, view jsonb')}
     on conflict (environment_id, id) do update set version = excluded.version, state = excluded.state, view = excluded.view`,
    [jsonRows(rows.map((r) => ({ environment_id: r.environmentId, id: r.id, position: r.position, version: r.version, state: r.state, view: r.view })))],
  );
}
