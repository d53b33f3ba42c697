import { QUANTITY_SCALE, ValidationError, divideRoundingHalfAwayFromZero, divideRoundingUp, parseScaledDecimal } from '@billing/shared-kernel';
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

const ONE = 10n ** BigInt(QUANTITY_SCALE);

/** The amount for a quantity given as a JSON number (or decimal string); errors point at `pointer`. */
export function amountFor(model: PriceModel, entry: PricingEntry, quantity: number | string, pointer = '/quantity'): bigint {
  const scaled = parseScaledDecimal(quantity, QUANTITY_SCALE, pointer);
  if (scaled < 0n) throw ValidationError.at(pointer, 'must not be negative');
  return amountForScaledQuantity(model, entry, scaled);
}

/**
 * What a quantity of a price is made of, as invoice lines show it: each
 * component is `quantity × unitAmount` (quantity scaled by 10^4), its amount
 * rounded half away from zero. The components add up to the price's amount
 * exactly (amountForScaledQuantity is their sum):
 * - fee: the quantity at the unit amount;
 * - package: the started packages at the package amount;
 * - volume: the whole quantity at its tier's unit amount, and that tier's flat amount;
 * - graduated: per tier reached, the units within it at its unit amount, and its flat amount.
 * A flat amount is its own component of quantity 1 (none when it is 0). Units
 * in a tier past the first are never 0 (the tier is not reached then); a
 * price with nothing else to show shows its units at quantity 0.
 *
 * One rounding, still: only one component can have a fractional quantity (tier
 * bounds are whole units, so every tier below the last one reached holds a whole
 * number of units), and amounts are never negative, so rounding that component
 * alone rounds the sum.
 */
export function priceComponents(model: PriceModel, entry: PricingEntry, quantity: bigint): PriceComponent[] {
  if (quantity < 0n) throw new RangeError('quantity must not be negative');
  switch (model) {
    case 'fee':
      return [units(null, quantity, fee(entry).unitAmount)];
    case 'package': {
      // A started package is a whole package: 10.5 units at 10 per package = 2 packages.
      const { packageSize, packageAmount } = pkg(entry);
      const packages = divideRoundingUp(quantity, BigInt(packageSize) * ONE);
      return [{ kind: 'packages', tier: null, quantity: packages * ONE, unitAmount: BigInt(packageAmount), amount: packages * BigInt(packageAmount) }];
    }
    case 'volume': {
      const tiers = tiered(entry).tiers;
      const reached = tiers.findIndex((t) => t.upTo === null || scaledUpTo(t) >= quantity);
      const index = reached === -1 ? tiers.length - 1 : reached;
      const tier = { ...tiers[index], number: index + 1, from: index === 0 ? 0 : (tiers[index - 1].upTo as number) };
      return withUnits(units(tier, quantity, tier.unitAmount), flat(tier));
    }
    case 'graduated': {
      const components: PriceComponent[] = [];
      let lower = 0n;
      for (const [index, t] of tiered(entry).tiers.entries()) {
        if (index > 0 && quantity <= lower) break; // tier not reached: no units, no flat fee
        const tier = { ...t, number: index + 1, from: Number(lower / ONE) };
        const upper = t.upTo === null || scaledUpTo(t) > quantity ? quantity : scaledUpTo(t);
        if (upper > lower) components.push(units(tier, upper - lower, t.unitAmount));
        components.push(...flat(tier));
        if (t.upTo === null) break;
        lower = scaledUpTo(t);
      }
      const [first] = tiered(entry).tiers;
      return components.length > 0 ? components : [units({ ...first, number: 1, from: 0 }, 0n, first.unitAmount)];
    }
  }
}

/** The amount for a quantity already scaled by 10^4 (1.5 units = 15000n): the sum of its components. */
export function amountForScaledQuantity(model: PriceModel, entry: PricingEntry, quantity: bigint): bigint {
  return priceComponents(model, entry, quantity).reduce((sum, component) => sum + component.amount, 0n);
}

/** One part of a price's amount: `quantity` (scaled by 10^4) × `unitAmount`, rounded to `amount`. */
export interface PriceComponent {
  /** units: of the quantity (fee, a tier's units); packages: started packages; flat: a tier's flat amount (quantity 1). */
  readonly kind: 'units' | 'packages' | 'flat';
  /** The tier (1-based) and the units it covers, (from, upTo]; null for fee and package. */
  readonly tier: { readonly number: number; readonly from: number; readonly upTo: number | null } | null;
  readonly quantity: bigint;
  readonly unitAmount: bigint;
  readonly amount: bigint;
}

type NumberedTier = Tier & { readonly number: number; readonly from: number };

function units(tier: NumberedTier | null, quantity: bigint, unitAmount: number): PriceComponent {
  return {
    kind: 'units',
    tier: tier === null ? null : { number: tier.number, from: tier.from, upTo: tier.upTo },
    quantity,
    unitAmount: BigInt(unitAmount),
    amount: divideRoundingHalfAwayFromZero(BigInt(unitAmount) * quantity, ONE),
  };
}

function flat(tier: NumberedTier): PriceComponent[] {
  if (tier.flatAmount === 0) return [];
  return [
    {
      kind: 'flat',
      tier: { number: tier.number, from: tier.from, upTo: tier.upTo },
      quantity: ONE,
      unitAmount: BigInt(tier.flatAmount),
      amount: BigInt(tier.flatAmount),
    },
  ];
}

/** A tier's units, left out at quantity 0 when its flat amount is there to show. */
function withUnits(unitsOfTier: PriceComponent, flatOfTier: PriceComponent[]): PriceComponent[] {
  return unitsOfTier.quantity === 0n && flatOfTier.length > 0 ? flatOfTier : [unitsOfTier, ...flatOfTier];
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
