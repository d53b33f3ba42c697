import { EntityManager } from 'typeorm';
import { Projection, RecordedEvent, streamBatches } from '@billing/event-store';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { PRICE_STREAM_TYPE, PRODUCT_STREAM_TYPE, PriceEvent, PriceState, ProductEvent, ProductState, priceEvolver, productEvolver } from '../domain';
import { priceViewOf, PriceView, productViewOf, ProductView } from '../views';

const CATALOG_PROJECTION = 'catalog.read-model';

/** One row to write: the stream's latest state and view, its version, and the position of its creating event. */
interface Row<State, View> {
  readonly environmentId: string;
  readonly id: string;
  readonly position: string;
  readonly version: number;
  readonly state: State;
  readonly view: View;
}

/** How one stream type is kept in its table: folded with the domain's evolver, written by one upsert. */
interface ReadModelTable<State, Event extends DomainEvent, View> {
  readonly table: 'prices' | 'products';
  readonly streamType: string;
  readonly evolver: Evolver<State, Event>;
  readonly toView: (state: State) => View | null;
  /** One statement for every row; `position` stays that of the creating event, everything else is the latest. */
  readonly upsert: (rows: readonly Row<State, View>[], tx: EntityManager) => Promise<unknown>;
}

const PRICES: ReadModelTable<PriceState, PriceEvent, PriceView> = {
  table: 'prices',
  streamType: PRICE_STREAM_TYPE,
  evolver: priceEvolver,
  toView: priceViewOf,
  upsert: (rows, tx) =>
    tx.query(
      `insert into prices (environment_id, id, product_id, archived, position, version, state, view)
       select environment_id, id, product_id, archived, position, version, state::jsonb, view::jsonb
         from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::boolean[], $5::bigint[], $6::integer[], $7::text[], $8::text[])
           as r(environment_id, id, product_id, archived, position, version, state, view)
       on conflict (environment_id, id) do update set product_id = excluded.product_id, archived = excluded.archived,
         version = excluded.version, state = excluded.state, view = excluded.view`,
      [
        rows.map((r) => r.environmentId),
        rows.map((r) => r.id),
        rows.map((r) => r.view.productId),
        rows.map((r) => r.view.archived),
        rows.map((r) => r.position),
        rows.map((r) => r.version),
        rows.map((r) => JSON.stringify(r.state)),
        rows.map((r) => JSON.stringify(r.view)),
      ],
    ),
};

const PRODUCTS: ReadModelTable<ProductState, ProductEvent, ProductView> = {
  table: 'products',
  streamType: PRODUCT_STREAM_TYPE,
  evolver: productEvolver,
  toView: productViewOf,
  upsert: (rows, tx) =>
    tx.query(
      `insert into products (environment_id, id, position, version, state, view)
       select environment_id, id, position, version, state::jsonb, view::jsonb
         from unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::integer[], $5::text[], $6::text[]) as r(environment_id, id, position, version, state, view)
       on conflict (environment_id, id) do update set version = excluded.version, state = excluded.state, view = excluded.view`,
      [
        rows.map((r) => r.environmentId),
        rows.map((r) => r.id),
        rows.map((r) => r.position),
        rows.map((r) => r.version),
        rows.map((r) => JSON.stringify(r.state)),
        rows.map((r) => JSON.stringify(r.view)),
      ],
    ),
};

/**
 * Keeps the `prices` and `products` read models that every catalog GET reads.
 * Each row carries the aggregate state, evolved with the domain's own evolver
 * (PriceUpdated is a diff, so the state before it is needed), and the view.
 *
 * Set-wise: per table and batch, at most one select (the stored state of the
 * streams that began before this batch) and one upsert of every touched row
 * at its latest state, whatever the number of events.
 */
export const catalogProjection: Projection = {
  name: CATALOG_PROJECTION,
  tables: ['prices', 'products'],
  streamTypes: [PRICE_STREAM_TYPE, PRODUCT_STREAM_TYPE],
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    await applyTo(PRICES, events, tx);
    await applyTo(PRODUCTS, events, tx);
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`delete from prices`);
    await tx.query(`delete from products`);
  },
};

async function applyTo<State, Event extends DomainEvent, View>(
  model: ReadModelTable<State, Event, View>,
  events: readonly RecordedEvent[],
  tx: EntityManager,
): Promise<void> {
  const streams = await streamBatches<State>(events, model.streamType, model.table, tx);
  const rows: Row<State, View>[] = [];
  for (const stream of streams) {
    let state = stream.stored ?? model.evolver.initialState();
    // The keyset of a new row: the position of the event that made the resource exist (kept on later batches).
    let position: string | null = null;
    for (const event of stream.events) {
      state = model.evolver.evolve(state, { type: event.type, schemaVersion: event.schemaVersion, data: event.data } as Event);
      if (position === null && model.toView(state) !== null) position = event.globalPosition;
    }
    const view = model.toView(state);
    if (view === null || position === null) continue;
    rows.push({ environmentId: stream.environmentId, id: stream.id, position, version: stream.events[stream.events.length - 1].streamVersion, state, view });
  }
  if (rows.length > 0) await model.upsert(rows, tx);
}
