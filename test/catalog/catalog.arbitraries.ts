/** fast-check arbitraries for the catalog's property tests (test support: kept out of the package's source). */
import fc from 'fast-check';
import { formatScaledDecimal } from '@billing/shared-kernel';
import { PRICE_MODELS, PriceModel, PricingEntry, Tier } from '@billing/catalog';

export const amountArb = (max = 1_000_000) => fc.integer({ min: 0, max });

/** 1..maxTiers tiers with strictly ascending integer upTo and a final unbounded tier. */
export const tiersArb = (maxTiers = 4, maxAmount = 100_000): fc.Arbitrary<Tier[]> =>
  fc
    .array(fc.record({ gap: fc.integer({ min: 1, max: 20 }), unitAmount: amountArb(maxAmount), flatAmount: amountArb(maxAmount) }), {
      minLength: 1,
      maxLength: maxTiers,
    })
    .map((raw) => {
      let upTo = 0;
      return raw.map(({ gap, unitAmount, flatAmount }, i) => {
        upTo += gap;
        return { upTo: i === raw.length - 1 ? null : upTo, unitAmount, flatAmount };
      });
    });

export const entryArb = (model: PriceModel, maxAmount = 100_000): fc.Arbitrary<PricingEntry> => {
  switch (model) {
    case 'fee':
      return fc.record({ unitAmount: amountArb(maxAmount) });
    case 'package':
      return fc.record({ packageSize: fc.integer({ min: 1, max: 50 }), packageAmount: amountArb(maxAmount) });
    default:
      return tiersArb(4, maxAmount).map((tiers) => ({ tiers }));
  }
};

export const modelArb = fc.constantFrom(...PRICE_MODELS);

/** A quantity with up to 4 decimals as a JSON number, with its scaled (x 10^4) value. */
export const quantityArb = (maxUnits = 120) =>
  fc.integer({ min: 0, max: maxUnits * 10_000 }).map((scaled) => ({ scaled: BigInt(scaled), number: Number(formatScaledDecimal(BigInt(scaled), 4)) }));

const currencies = ['eur', 'usd', 'dkk', 'jpy', 'gbp'];

export const pricingArb = (model: PriceModel) =>
  fc
    .uniqueArray(fc.constantFrom(...currencies), { minLength: 1, maxLength: 3 })
    .chain((keys) => fc.tuple(...keys.map(() => entryArb(model))).map((entries) => Object.fromEntries(keys.map((k, i) => [k, entries[i]]))));

const nameArb = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 });

/** A valid POST /prices body (random optional members present or absent). */
export const createPriceBodyArb = modelArb.chain((priceModel) =>
  fc
    .record(
      {
        name: nameArb,
        description: fc.option(fc.string({ maxLength: 60 }), { nil: null }),
        priceModel: fc.constant(priceModel),
        pricing: pricingArb(priceModel),
        billingTiming: fc.constantFrom('advance', 'arrears', 'event_based'),
        productId: fc.uuid(),
        term: fc.option(fc.record({ termCount: fc.integer({ min: 1, max: 10000 }), termUnit: fc.constantFrom('day', 'week', 'month', 'year') }), {
          nil: null,
        }),
      },
      { requiredKeys: ['name', 'priceModel', 'pricing', 'term'] },
    )
    .map(({ term, ...rest }) => {
      // An event_based price is recurring and names its billable metric.
      if (rest.billingTiming === 'event_based') {
        const recurring = term ?? { termCount: 1, termUnit: 'month' };
        return { ...rest, purchase: 'recurring', ...recurring, metricCode: 'api_calls' };
      }
      return term ? { ...rest, purchase: 'recurring', ...term } : { ...rest, purchase: 'one_time' };
    }),
);

/** A valid PUT /prices/{id} body for a price of this model and purchase. */
export const updatePriceBodyArb = (priceModel: PriceModel, recurring: boolean) =>
  fc.record(
    {
      name: nameArb,
      description: fc.option(fc.string({ maxLength: 60 }), { nil: null }),
      pricing: pricingArb(priceModel),
      ...(recurring ? { termCount: fc.integer({ min: 1, max: 10000 }) } : {}),
    },
    { requiredKeys: [] },
  );
