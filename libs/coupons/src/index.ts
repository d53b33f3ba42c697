/**
 * The published surface of the coupons context, imported as `@billing/coupons`
 * (which contexts may: context-map.js): its definition and the redemption
 * other contexts run inside their own command (`parseDiscountRequests`,
 * `redeemDiscounts`), with the coupon and promotion code events.
 */
export * from './domain';
export { couponsContext } from './coupons.context';
export { couponsMigrations } from './migrations';
export { couponStream, promotionCodeStream } from './streams';
export { DiscountRequest, MAX_DISCOUNTS, parseDiscountRequests, RedeemedDiscount, Redeemer, redeemDiscounts } from './redemption/redeem-discounts';
export { DiscountInputDto, DiscountsProperty } from './http/discount-input.dto';
export { productsOfPrices } from './redemption/price-products';
