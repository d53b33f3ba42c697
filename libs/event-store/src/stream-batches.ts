import { EntityManager } from 'typeorm';
import { DomainEvent, Evolver, foldEvents } from '@billing/shared-kernel';
import { queryRows } from './sql';
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
export async function streamBatches<State>(events: readonly RecordedEvent[], streamType: string, table: string, tx: EntityManager): Promise<StreamBatch<State>[]> {
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
    if (state.status !== 'none') folded.push({ environmentId: stream.environmentId, id: stream.id, version: last.streamVersion, state, recordedAt: last.recordedAt });
  }
  return folded;
}
