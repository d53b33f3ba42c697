import { StreamRef } from '@billing/event-store';
import { StreamDefinition } from '@billing/platform';
import { uuidV5 } from '@billing/shared-kernel';
import {
  COUPON_STREAM,
  CouponEvent,
  couponEvolver,
  CouponState,
  PROMOTION_CODE_STREAM,
  PromotionCodeEvent,
  promotionCodeEvolver,
  PromotionCodeState,
} from './domain';
import { couponViewOf, promotionCodeViewOf } from './views';

export const COUPON_CODE_STREAM = 'coupon-code';
export const PROMOTION_CODE_CLAIM_STREAM = 'promotion-code-claim';

/** Fixed namespaces of the code claim stream ids (random v4 uuids chosen once; never change them). */
const COUPON_CODE_NAMESPACE = '4d0f6a52-93c1-4b7e-8f0e-2a6c1d9b7e31';
const PROMOTION_CODE_NAMESPACE = '9b2e7c14-5a3d-4f61-b8c9-0e4d2f7a1c56';

export function couponStream(environmentId: string, couponId: string): StreamRef {
  return { environmentId, streamType: COUPON_STREAM, streamId: couponId };
}

export function promotionCodeStream(environmentId: string, promotionCodeId: string): StreamRef {
  return { environmentId, streamType: PROMOTION_CODE_STREAM, streamId: promotionCodeId };
}

/** The claim of a coupon's code: uuid v5 of the environment and the lower-cased code. */
export function couponCodeStream(environmentId: string, code: string): StreamRef {
  return { environmentId, streamType: COUPON_CODE_STREAM, streamId: uuidV5(`${environmentId}\u0000${code.toLowerCase()}`, COUPON_CODE_NAMESPACE) };
}

/** The claim of a promotion code: uuid v5 of the environment and the lower-cased code (also how a typed code finds its promotion code). */
export function promotionCodeClaimStream(environmentId: string, code: string): StreamRef {
  return {
    environmentId,
    streamType: PROMOTION_CODE_CLAIM_STREAM,
    streamId: uuidV5(`${environmentId}\u0000${code.toLowerCase()}`, PROMOTION_CODE_NAMESPACE),
  };
}

/**
 * One stream per coupon (all schema version 1): `CouponCreated` (the whole
 * coupon as created), `CouponUpdated` (name, maxRedemptions and redeemBy as
 * they are now), `CouponArchived`, `CouponRedeemed` (one per redemption:
 * the discount it became, the promotion code it came through, who redeemed it).
 */
export const couponStreamDefinition: StreamDefinition<CouponState, CouponEvent> = {
  type: COUPON_STREAM,
  idScheme: 'the coupon id: a random uuid the service chooses on POST /coupons',
  events: [
    { type: 'CouponCreated', schemaVersion: 1 },
    { type: 'CouponUpdated', schemaVersion: 1 },
    { type: 'CouponArchived', schemaVersion: 1 },
    { type: 'CouponRedeemed', schemaVersion: 1 },
  ],
  view: { evolver: couponEvolver, toView: couponViewOf },
  resource: { type: 'coupon', path: 'coupons' },
};

/** One stream per promotion code: `PromotionCodeCreated`, `PromotionCodeArchived`, `PromotionCodeRedeemed` (schema version 1). */
export const promotionCodeStreamDefinition: StreamDefinition<PromotionCodeState, PromotionCodeEvent> = {
  type: PROMOTION_CODE_STREAM,
  idScheme: 'the promotion code id: a random uuid the service chooses on POST /promotion-codes',
  events: [
    { type: 'PromotionCodeCreated', schemaVersion: 1 },
    { type: 'PromotionCodeArchived', schemaVersion: 1 },
    { type: 'PromotionCodeRedeemed', schemaVersion: 1 },
  ],
  view: { evolver: promotionCodeEvolver, toView: promotionCodeViewOf },
  resource: { type: 'promotion_code', path: 'promotion-codes' },
};

export const couponCodeStreamDefinition: StreamDefinition = {
  type: COUPON_CODE_STREAM,
  idScheme: 'uuid v5 of (environment, lower-cased code): a coupon code is held by one coupon (couponCodeStream)',
  events: [{ type: 'CodeClaimed', schemaVersion: 1 }],
};

export const promotionCodeClaimStreamDefinition: StreamDefinition = {
  type: PROMOTION_CODE_CLAIM_STREAM,
  idScheme: 'uuid v5 of (environment, lower-cased code): a promotion code is held by one promotion code (promotionCodeClaimStream)',
  events: [{ type: 'CodeClaimed', schemaVersion: 1 }],
};
