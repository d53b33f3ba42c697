import { StreamRef } from '@billing/event-store';
import { PRICE_STREAM_TYPE, PRODUCT_STREAM_TYPE, PriceView, ProductView } from './domain';

export function priceStream(environmentId: string, priceId: string): StreamRef {
  return { environmentId, streamType: PRICE_STREAM_TYPE, streamId: priceId };
}

export function productStream(environmentId: string, productId: string): StreamRef {
  return { environmentId, streamType: PRODUCT_STREAM_TYPE, streamId: productId };
}

/** What a write answers with: the resource after the command, and its stream version (the ETag). */
export interface PriceWriteResult {
  readonly price: PriceView;
  readonly version: number;
}

export interface ProductWriteResult {
  readonly product: ProductView;
  readonly version: number;
}
