import { EntityManager } from 'typeorm';
import { Projection, RecordedEvent, upsertViewRows, ViewRow, ViewTable, viewRows } from '@billing/event-store';
import { DomainEvent } from '@billing/shared-kernel';
import { PRICE_STREAM_TYPE, PRODUCT_STREAM_TYPE, PriceEvent, PriceState, ProductEvent, ProductState, priceEvolver, productEvolver } from '../domain';
import { priceViewOf, PriceView, productViewOf, ProductView } from '../views';

const CATALOG_PROJECTION = 'catalog.read-model';

/** A table of the catalog's read model, and its one upsert of every touched row. */
interface ReadModelTable<State, Event extends DomainEvent, View> extends ViewTable<State, Event, View> {
  readonly upsert: (rows: readonly ViewRow<State, View>[], tx: EntityManager) => Promise<unknown>;
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
  upsert: (rows, tx) => upsertViewRows('products', rows, tx),
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
    await tx.query(`truncate prices, products`);
  },
};

async function applyTo<State, Event extends DomainEvent, View>(
  model: ReadModelTable<State, Event, View>,
  events: readonly RecordedEvent[],
  tx: EntityManager,
): Promise<void> {
  const rows = await viewRows(model, events, tx);
  if (rows.length > 0) await model.upsert(rows, tx);
}
