import { BoundedContext } from '@billing/platform';
import { COUPONS_PROBLEMS } from './coupons.problems';
import { CouponsModule } from './coupons.module';
import { COUPON_STREAM, PROMOTION_CODE_STREAM } from './domain';
import { couponsMigrations } from './migrations';
import { couponsProjection } from './read-model/coupons.projection';
import { couponCodeStreamDefinition, couponStreamDefinition, promotionCodeClaimStreamDefinition, promotionCodeStreamDefinition } from './streams';

/**
 * Coupons and promotion codes: reusable discounts and the codes customers
 * type for them. Other contexts redeem them inside their own commands
 * (`redeemDiscounts`). Every notification carries the resource as of the event.
 */
export const couponsContext: BoundedContext = {
  name: 'coupons',
  module: CouponsModule,
  migrations: couponsMigrations,
  streams: [couponStreamDefinition, promotionCodeStreamDefinition, couponCodeStreamDefinition, promotionCodeClaimStreamDefinition],
  projections: [couponsProjection],
  reactors: [],
  notifications: [
    { name: 'coupon.created', streamType: COUPON_STREAM, eventType: 'CouponCreated', description: 'a coupon is created' },
    { name: 'coupon.archived', streamType: COUPON_STREAM, eventType: 'CouponArchived', description: 'a coupon is archived' },
    { name: 'promotion_code.created', streamType: PROMOTION_CODE_STREAM, eventType: 'PromotionCodeCreated', description: 'a promotion code is created' },
  ],
  problems: COUPONS_PROBLEMS,
};
