export * from './types';
export type { CreatePriceInput, UpdatePriceInput, PriceShape } from './price-validation';
export { validateCreatePrice, validateUpdatePrice } from './price-validation';
export { QUANTITY_SCALE, amountFor, amountForScaledQuantity } from './pricing';
export * from './price';
export * from './product';
export type { QuotablePrice, Quote } from './quote';
export { quotePrice } from './quote';
