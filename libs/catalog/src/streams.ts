import { StreamRef } from '@billing/event-store';
import { StreamDefinition } from '@billing/platform';
import { PRICE_STREAM_TYPE, PRODUCT_STREAM_TYPE, PriceEvent, PriceState, ProductEvent, ProductState, priceEvolver, productEvolver } from './domain';
import { priceViewOf, productViewOf } from './views';

export function priceStream(environmentId: string, priceId: string): StreamRef {
  return { environmentId, streamType: PRICE_STREAM_TYPE, streamId: priceId };
}

export function productStream(environmentId: string, productId: string): StreamRef {
  return { environmentId, streamType: PRODUCT_STREAM_TYPE, streamId: productId };
}

/**
 * One stream per price. What each event carries (all schema version 1):
 * - `PriceCreated`: the whole price as created — priceId, name, description,
 *   priceModel, purchase, termCount, termUnit, billingTiming, pricing,
 *   productId — and createdAt.
 * - `PriceUpdated`: a diff, not a snapshot — priceId, updatedAt and only the
 *   members that changed (of name, termCount, description, pricing;
 *   `description: null` clears it). Folding needs the state before it.
 *   (Invoicing's updates carry full snapshots; stored events are immutable,
 *   so this shape stays.)
 * - `PriceArchived`: priceId and archivedAt.
 */
export const priceStreamDefinition: StreamDefinition<PriceState, PriceEvent> = {
  type: PRICE_STREAM_TYPE,
  idScheme: 'the price id: a random uuid the service chooses on POST /prices',
  events: [
    { type: 'PriceCreated', schemaVersion: 1 },
    { type: 'PriceUpdated', schemaVersion: 1 },
    { type: 'PriceArchived', schemaVersion: 1 },
  ],
  view: { evolver: priceEvolver, toView: priceViewOf },
  resource: { type: 'price', path: 'prices' },
};

/** One stream per product. `ProductCreated` (schema version 1): productId, name, description and createdAt. */
export const productStreamDefinition: StreamDefinition<ProductState, ProductEvent> = {
  type: PRODUCT_STREAM_TYPE,
  idScheme: 'the product id: a random uuid the service chooses on POST /products',
  events: [{ type: 'ProductCreated', schemaVersion: 1 }],
  view: { evolver: productEvolver, toView: productViewOf },
  resource: { type: 'product', path: 'products' },
};
