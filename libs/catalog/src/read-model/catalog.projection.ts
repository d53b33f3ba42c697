import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ProjectionRunner, queryRows, RecordedEvent } from '@billing/event-store';
import { ResourceViews } from '@billing/platform';
import {
  PRICE_STREAM_TYPE,
  PRODUCT_STREAM_TYPE,
  PriceEvent,
  PriceState,
  ProductEvent,
  ProductState,
  priceEvolver,
  productEvolver,
  toPriceView,
  toProductView,
} from '../domain';

export const CATALOG_PROJECTION = 'catalog.read-model';

/**
 * Keeps the `prices` and `products` read models. Each row carries the
 * aggregate state, evolved by the domain's own evolver, and the view the API
 * returns; the GET endpoints read only these tables. Registers the views with
 * ResourceViews so webhook notifications carry the resource as the API shows it.
 */
@Injectable()
export class CatalogProjection implements OnModuleInit {
  constructor(
    private readonly runner: ProjectionRunner,
    private readonly views: ResourceViews,
  ) {}

  onModuleInit(): void {
    this.views.register(PRICE_STREAM_TYPE, priceEvolver, toPriceView);
    this.views.register(PRODUCT_STREAM_TYPE, productEvolver, toProductView);
    this.runner.register({
      name: CATALOG_PROJECTION,
      consistency: 'read-your-writes',
      apply: (event, tx) => this.apply(event, tx),
      reset: async (tx) => {
        await tx.query(`delete from prices`);
        await tx.query(`delete from products`);
      },
    });
  }

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.streamType === PRICE_STREAM_TYPE) await this.applyPrice(event, tx);
    else if (event.streamType === PRODUCT_STREAM_TYPE) await this.applyProduct(event, tx);
  }

  private async applyPrice(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const [row] = await queryRows<{ state: PriceState }>(tx, `select state from prices where environment_id = $1 and id = $2`, [
      event.environmentId,
      event.streamId,
    ]);
    const state = priceEvolver.evolve(row?.state ?? priceEvolver.initialState(), domainEvent<PriceEvent>(event));
    const view = toPriceView(state);
    if (!view) return;
    await tx.query(
      `insert into prices (environment_id, id, product_id, archived, position, version, state, view)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (environment_id, id) do update set product_id = excluded.product_id, archived = excluded.archived,
         version = excluded.version, state = excluded.state, view = excluded.view`,
      [
        event.environmentId,
        event.streamId,
        view.productId,
        view.archived,
        event.globalPosition,
        event.streamVersion,
        JSON.stringify(state),
        JSON.stringify(view),
      ],
    );
  }

  private async applyProduct(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const [row] = await queryRows<{ state: ProductState }>(tx, `select state from products where environment_id = $1 and id = $2`, [
      event.environmentId,
      event.streamId,
    ]);
    const state = productEvolver.evolve(row?.state ?? productEvolver.initialState(), domainEvent<ProductEvent>(event));
    const view = toProductView(state);
    if (!view) return;
    await tx.query(
      `insert into products (environment_id, id, position, version, state, view)
       values ($1, $2, $3, $4, $5, $6)
       on conflict (environment_id, id) do update set version = excluded.version, state = excluded.state, view = excluded.view`,
      [event.environmentId, event.streamId, event.globalPosition, event.streamVersion, JSON.stringify(state), JSON.stringify(view)],
    );
  }
}

function domainEvent<Event>(event: RecordedEvent): Event {
  return { type: event.type, schemaVersion: event.schemaVersion, data: event.data } as Event;
}
