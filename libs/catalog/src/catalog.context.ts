import { BoundedContext } from '@billing/platform';
import { CATALOG_PROBLEMS } from './catalog.problems';
import { CatalogModule } from './catalog.module';
import { PRICE_STREAM_TYPE, PRODUCT_STREAM_TYPE } from './domain';
import { catalogMigrations } from './migrations';
import { catalogProjection } from './read-model/catalog.projection';
import { priceStreamDefinition, productStreamDefinition } from './streams';

/**
 * The catalog: prices (with their pricing maths) and the products they may
 * belong to. Writes go through the event store; reads come from the `prices`
 * and `products` read models kept by the `catalog.read-model` projection.
 * Every notification carries the resource as the API returns it, as of the event.
 */
export const catalogContext: BoundedContext = {
  name: 'catalog',
  module: CatalogModule,
  migrations: catalogMigrations,
  streams: [priceStreamDefinition, productStreamDefinition],
  projections: [catalogProjection],
  reactors: [],
  notifications: [
    { name: 'price.created', streamType: PRICE_STREAM_TYPE, eventType: 'PriceCreated', description: 'a price is created' },
    { name: 'price.updated', streamType: PRICE_STREAM_TYPE, eventType: 'PriceUpdated', description: 'a price is updated' },
    { name: 'price.archived', streamType: PRICE_STREAM_TYPE, eventType: 'PriceArchived', description: 'a price is archived' },
    { name: 'product.created', streamType: PRODUCT_STREAM_TYPE, eventType: 'ProductCreated', description: 'a product is created' },
  ],
  problems: CATALOG_PROBLEMS,
};
