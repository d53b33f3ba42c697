import { ValidationError, divideRoundingHalfAwayFromZero, divideRoundingUp, parseScaledDecimal } from '@billing/shared-kernel';
import { FeePricing, PackagePricing, PriceModel, PricingEntry, Tier, TieredPricing } from './types';

/**
 * Pricing maths. Quantities have at most 4 decimals and are carried as
 * integers scaled by 10^4; all arithmetic is exact bigint, and the one rounding
 * (half away from zero, to whole minor units) happens once, at the end.
 *
 * Quantity 0 (decided): the first tier is always reached, so a tiered price
 * costs its first tier's flatAmount at quantity 0 (a base fee, as in the
 * "flat fee + overage" pattern of Stripe and Lago), fee and package cost 0.
 *
 * The result is exact and may exceed MAX_AMOUNT (e.g. a huge unitAmount x
 * 1000 units); callers check it with `assertAmountInRange` at their own pointer.
 */

export const QUANTITY_SCALE = 4;
const ONE = 10n ** BigInt(QUANTITY_SCALE);

/** The amount for a quantity given as a JSON number (or decimal string); errors point at `pointer`. */
export function amountFor(model: PriceModel, entry: PricingEntry, quantity: number | string, pointer = '/quantity'): bigint {
  const scaled = parseScaledDecimal(quantity, QUANTITY_SCALE, pointer);
  if (scaled < 0n) throw ValidationError.at(pointer, 'must not be negative');
  return amountForScaledQuantity(model, entry, scaled);
}

/** The amount for a quantity already scaled by 10^4 (1.5 units = 15000n). */
export function amountForScaledQuantity(model: PriceModel, entry: PricingEntry, quantity: bigint): bigint {
  if (quantity < 0n) throw new RangeError('quantity must not be negative');
  switch (model) {
    case 'fee':
      return divideRoundingHalfAwayFromZero(BigInt(fee(entry).unitAmount) * quantity, ONE);
    case 'package': {
      // A started package is a whole package: 10.5 units at 10 per package = 2 packages.
      const { packageSize, packageAmount } = pkg(entry);
      return divideRoundingUp(quantity, BigInt(packageSize) * ONE) * BigInt(packageAmount);
    }
    case 'volume': {
      const tiers = tiered(entry).tiers;
      const tier = tiers.find((t) => t.upTo === null || scaledUpTo(t) >= quantity) ?? tiers[tiers.length - 1];
      return divideRoundingHalfAwayFromZero(BigInt(tier.unitAmount) * quantity + BigInt(tier.flatAmount) * ONE, ONE);
    }
    case 'graduated': {
      let total = 0n; // in minor units x 10^4
      let lower = 0n;
      for (const [i, tier] of tiered(entry).tiers.entries()) {
        if (i > 0 && quantity <= lower) break; // tier not reached: no units, no flat fee
        const upper = tier.upTo === null || scaledUpTo(tier) > quantity ? quantity : scaledUpTo(tier);
        total += BigInt(tier.unitAmount) * (upper - lower) + BigInt(tier.flatAmount) * ONE;
        if (tier.upTo === null) break;
        lower = scaledUpTo(tier);
      }
      return divideRoundingHalfAwayFromZero(total, ONE);
    }
  }
}

function scaledUpTo(tier: Tier): bigint {
  return BigInt(tier.upTo as number) * ONE;
}

// Entries come from validated state; a mismatch is corrupt data, not a user error.
function fee(entry: PricingEntry): FeePricing {
  if ('unitAmount' in entry) return entry;
  throw new TypeError('expected a fee pricing entry');
}
function pkg(entry: PricingEntry): PackagePricing {
  if ('packageSize' in entry) return entry;
  throw new TypeError('expected a package pricing entry');
}
function tiered(entry: PricingEntry): TieredPricing {
  if ('tiers' in entry && entry.tiers.length > 0) return entry;
  throw new TypeError('expected a tiered pricing entry');
}
