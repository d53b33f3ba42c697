/** Value types of the catalog. Amounts are integer minor units (cents) within +-MAX_AMOUNT. */

export const PRICE_MODELS = ['fee', 'volume', 'graduated', 'package'] as const;
export type PriceModel = (typeof PRICE_MODELS)[number];

export const PURCHASES = ['one_time', 'recurring'] as const;
export type Purchase = (typeof PURCHASES)[number];

export const TERM_UNITS = ['day', 'week', 'month', 'year'] as const;
export type TermUnit = (typeof TERM_UNITS)[number];

export const BILLING_TIMINGS = ['advance', 'arrears', 'event_based'] as const;
export type BillingTiming = (typeof BILLING_TIMINGS)[number];

/** The INTERFACE.md limits, in one place. Lengths count Unicode code points. */
export const PRICE_LIMITS = Object.freeze({
  nameMaxLength: 250,
  descriptionMaxLength: 4000,
  termCountMin: 1,
  termCountMax: 10000,
});

/** `fee`: unitAmount per unit. */
export interface FeePricing {
  readonly unitAmount: number;
}

/** `package`: packageAmount per started block of packageSize units. */
export interface PackagePricing {
  readonly packageSize: number;
  readonly packageAmount: number;
}

/** A tier covers (previous upTo, upTo]; the last tier is unbounded (upTo null). */
export interface Tier {
  readonly upTo: number | null;
  readonly unitAmount: number;
  readonly flatAmount: number;
}

/** `volume` and `graduated`. */
export interface TieredPricing {
  readonly tiers: readonly Tier[];
}

export type PricingEntry = FeePricing | PackagePricing | TieredPricing;

/** Keyed by lowercase supported ISO 4217 code; the entry shape follows the price's priceModel. */
export type Pricing = Readonly<Record<string, PricingEntry>>;
