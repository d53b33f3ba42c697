import { BillingTiming, ExistingPrice, ExistingProduct, PriceModel, PriceState, Pricing, ProductState, Purchase, TermUnit } from './domain';

/**
 * The resources as the API returns them: the read side's mapping of the
 * aggregates' state (the read model stores these, writes answer with them,
 * webhook notifications carry them).
 */

/**
 * The Price as the API returns it. The interface does not let `description`,
 * `termCount` or `termUnit` be null, so what does not apply is omitted: the
 * description when the price has none, the term on a one_time price.
 * `productId` and `archivedAt` are the service's own, nullable, members.
 */
export interface PriceView {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly priceModel: PriceModel;
  readonly purchase: Purchase;
  readonly termCount?: number;
  readonly termUnit?: TermUnit;
  readonly billingTiming: BillingTiming;
  /** The billable metric of an event_based price; absent on other prices. */
  readonly metricCode?: string;
  readonly pricing: Pricing;
  readonly productId: string | null;
  readonly archived: boolean;
  readonly archivedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export function toPriceView(price: ExistingPrice): PriceView {
  const { status, id, name, description, priceModel, purchase, termCount, termUnit, billingTiming, pricing, productId } = price;
  return {
    id,
    name,
    ...(description === null ? {} : { description }),
    priceModel,
    purchase,
    ...(termCount === null ? {} : { termCount }),
    ...(termUnit === null ? {} : { termUnit }),
    billingTiming,
    ...(price.metricCode === undefined ? {} : { metricCode: price.metricCode }),
    pricing,
    productId,
    archived: status === 'archived',
    archivedAt: price.archivedAt,
    createdAt: price.createdAt,
    updatedAt: price.updatedAt,
  };
}

/** The Price view of a stream's state; null while the price does not exist. */
export function priceViewOf(state: PriceState): PriceView | null {
  return state.status === 'none' ? null : toPriceView(state);
}

export interface ProductView {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly createdAt: string;
}

export function toProductView(product: ExistingProduct): ProductView {
  const { id, name, description, createdAt } = product;
  return { id, name, description, createdAt };
}

export function productViewOf(state: ProductState): ProductView | null {
  return state.status === 'none' ? null : toProductView(state);
}
