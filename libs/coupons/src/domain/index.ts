export * from './coupon';
export * from './promotion-code';
export * from './code-claim';
export { isJsonObject } from './body';
