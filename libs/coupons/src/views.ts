import { Coupon, CouponState, PromotionCode, PromotionCodeState } from './domain';

/** The coupon as the API returns it: in responses, notifications, history and as-of reads alike. */
export type CouponView = Coupon;

export function toCouponView(coupon: Coupon): CouponView {
  const { id, status, code, name, percentOff, amountOff, duration, durationInMonths, appliesTo, maxRedemptions, redeemBy, timesRedeemed } = coupon;
  return {
    id,
    status,
    code,
    name,
    percentOff,
    amountOff,
    duration,
    durationInMonths,
    appliesTo,
    maxRedemptions,
    redeemBy,
    timesRedeemed,
    createdAt: coupon.createdAt,
    updatedAt: coupon.updatedAt,
    archivedAt: coupon.archivedAt,
  };
}

export function couponViewOf(state: CouponState): CouponView | null {
  return state.status === 'none' ? null : toCouponView(state);
}

export type PromotionCodeView = PromotionCode;

export function toPromotionCodeView(promotionCode: PromotionCode): PromotionCodeView {
  const { id, status, couponId, code, maxRedemptions, expiresAt, restrictions, timesRedeemed, createdAt, archivedAt } = promotionCode;
  return { id, status, couponId, code, maxRedemptions, expiresAt, restrictions, timesRedeemed, createdAt, archivedAt };
}

export function promotionCodeViewOf(state: PromotionCodeState): PromotionCodeView | null {
  return state.status === 'none' ? null : toPromotionCodeView(state);
}
