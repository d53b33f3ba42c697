export * from './types';
export { UNKNOWN_PROPERTY } from './json';
export type { CreatePriceInput } from './price-validation';
export { METRIC_CODE_PATTERN, validateCreatePrice } from './price-validation';
export * from './price';
export * from './product';
export type { QuotablePrice, Quote } from './quote';
export { quotePrice } from './quote';
/** The pricing maths, for the billing engine: what a quantity of a price costs, and what it is made of. */
export type { PriceComponent } from './pricing';
export { amountForScaledQuantity, priceComponents } from './pricing';
/** A charge's invoice lines: a price's components, a share of it split over them as discounts. */
export type { ChargeLine } from './charge-lines';
export { chargeLines, componentLabel, versionShareLines } from './charge-lines';
