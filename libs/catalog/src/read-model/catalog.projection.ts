import { EntityManager } from 'typeorm';
import { jsonRows, jsonRowsFrom, Projection, RecordedEvent, upsertViewRows, ViewRow, ViewTable, viewRows } from '@billing/event-store';
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
       select * from ${jsonRowsFrom(1, 'environment_id uuid, id uuid, product_id uuid, archived boolean, position bigint, version integer, state jsonb, view jsonb')}
       on conflict (environment_id, id) do update set product_id = excluded.product_id, archived = excluded.archived,
         version = excluded.version, state = excluded.state, view = excluded.view`,
      [
        jsonRows(
          rows.map((r) => ({
            environment_id: r.environmentId,
            id: r.id,
            product_id: r.view.productId,
            archived: r.view.archived,
            position: r.position,
            version: r.version,
            state: r.state,
            view: r.view,
          })),
        ),
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
