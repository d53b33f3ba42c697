import { PRICE_STREAM_TYPE, priceEvolver } from '@billing/catalog';
import { CommandSession } from '@billing/event-store';

/**
 * The products of prices, read from the catalog's price streams (its
 * published events and fold) in another context's command: what an invoice
 * line naming a price is, for an appliesTo coupon. A price of no environment
 * (or another's) is absent from the answer; a price without a product maps to null.
 */
export async function productsOfPrices(session: CommandSession, environmentId: string, priceIds: readonly string[]): Promise<Map<string, string | null>> {
  const products = new Map<string, string | null>();
  for (const priceId of new Set(priceIds)) {
    const { state } = await session.load({ environmentId, streamType: PRICE_STREAM_TYPE, streamId: priceId }, priceEvolver);
    if (state.status !== 'none') products.set(priceId, state.productId ?? null);
  }
  return products;
}
