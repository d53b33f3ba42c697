import { PriceCreated } from '@billing/catalog';

/**
 * A monthly €15 fee price's PriceCreated, as the catalog records one: the price event the specs of every read model
 * that follows prices (the catalog's, subscriptions', analytics') start from, with what a case changes in `overrides`.
 */
export function priceCreated(priceId: string, createdAt: string, overrides: Partial<PriceCreated['data']> = {}): PriceCreated {
  return {
    type: 'PriceCreated',
    schemaVersion: 1,
    data: {
      priceId,
      name: 'Pro monthly',
      description: null,
      priceModel: 'fee',
      purchase: 'recurring',
      termCount: 1,
      termUnit: 'month',
      billingTiming: 'advance',
      pricing: { eur: { unitAmount: 1500 } },
      productId: null,
      createdAt,
      ...overrides,
    },
  };
}
