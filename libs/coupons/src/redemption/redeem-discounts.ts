import { CommandSession } from '@billing/event-store';
import { childPointer, CommandMetadata, FieldError, isUuid, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import {
  codeClaimEvolver,
  CouponDuration,
  couponEvolver,
  CouponRedeemed,
  decideRedeemCoupon,
  decideRedeemPromotionCode,
  existingCoupon,
  existingPromotionCode,
  isJsonObject,
  promotionCodeEvolver,
} from '../domain';
import { couponStream, promotionCodeClaimStream, promotionCodeStream } from '../streams';

/**
 * The published redemption: another context (subscriptions, and draft
 * invoices next) redeems the discounts a request names inside its own
 * command's transaction (CommandPath.run). Each coupon's and promotion
 * code's redemption event is appended at the version loaded, with the
 * caller's own events, so a coupon's limit holds under any concurrency: of
 * twenty concurrent requests for the last redemption one commits and the
 * others, decided again on the new version, are refused (409 coupon-exhausted).
 */

export const MAX_DISCOUNTS = 5;

/** A discount as a request names it. */
export type DiscountRequest = { readonly couponId: string } | { readonly promotionCode: string };

/** A redeemed discount: the coupon's terms in the redeemer's currency, fixed at redemption. */
export interface RedeemedDiscount {
  /** The redemption's id (the discount's id on the redeemer). */
  readonly id: string;
  readonly couponId: string;
  readonly promotionCodeId: string | null;
  readonly promotionCode: string | null;
  readonly name: string;
  readonly percentOff: number | null;
  /** Minor units of the redeemer's currency. */
  readonly amountOff: number | null;
  readonly duration: CouponDuration;
  readonly durationInMonths: number | null;
  /** Null: every line is eligible. */
  readonly productIds: readonly string[] | null;
  /** A promotion code's minimumAmount in the redeemer's currency: an invoice totalling less before discounts is not discounted. */
  readonly minimumAmount: number | null;
}

export interface Redeemer {
  readonly environmentId: string;
  readonly redeemedBy: CouponRedeemed['data']['redeemedBy'];
  /** Uppercase ISO 4217; null: the redeemer has no currency (a customer without one), so an amount off or a minimum amount is refused. */
  readonly currency: string | null;
  /** Whether a first-time-only promotion code may be redeemed. */
  readonly firstTimeCustomer: boolean;
  /** Where the request's discounts are (e.g. /discounts). */
  readonly pointer: string;
}

/** `[{couponId} | {promotionCode}]`, at most 5, each exactly one of the two; unknown members refused. Null: none given. */
export function parseDiscountRequests(value: unknown, pointer: string): DiscountRequest[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_DISCOUNTS) throw ValidationError.at(pointer, `must be an array of at most ${MAX_DISCOUNTS} discounts`);
  const errors: FieldError[] = [];
  const requests = value.map((entry, index): DiscountRequest | null => {
    const at = childPointer(pointer, index);
    if (!isJsonObject(entry)) {
      errors.push({ pointer: at, detail: 'must be {couponId} or {promotionCode}' });
      return null;
    }
    for (const key of Object.keys(entry))
      if (key !== 'couponId' && key !== 'promotionCode') errors.push({ pointer: childPointer(at, key), detail: UNKNOWN_PROPERTY });
    const { couponId, promotionCode } = entry;
    if ((couponId === undefined) === (promotionCode === undefined)) {
      errors.push({ pointer: at, detail: 'must have exactly one of couponId and promotionCode' });
      return null;
    }
    if (couponId !== undefined) {
      if (typeof couponId === 'string' && isUuid(couponId)) return { couponId: couponId.toLowerCase() };
      errors.push({ pointer: `${at}/couponId`, detail: 'must be the UUID of a coupon' });
      return null;
    }
    if (typeof promotionCode === 'string' && promotionCode.length >= 1 && promotionCode.length <= 100) return { promotionCode };
    errors.push({ pointer: `${at}/promotionCode`, detail: 'must be a code of 1 to 100 characters' });
    return null;
  });
  if (errors.length > 0) throw new ValidationError('The discounts are invalid', errors);
  return requests as DiscountRequest[];
}

/**
 * Redeems every requested discount in `session` (loading and appending the
 * coupon and promotion code streams) and answers them in the order given.
 * An unknown coupon or code, a coupon twice, or a coupon without an amount
 * (or a code without a minimum) in the currency is a 422 at the discount.
 */
export async function redeemDiscounts(
  session: CommandSession,
  requests: readonly DiscountRequest[],
  redeemer: Redeemer,
  meta: CommandMetadata,
): Promise<RedeemedDiscount[]> {
  const { environmentId, currency } = redeemer;
  const redeemed: RedeemedDiscount[] = [];
  for (const [index, request] of requests.entries()) {
    const at = childPointer(redeemer.pointer, index);
    const id = meta.newId();
    let promotionCode: { id: string; code: string; minimumAmount: Readonly<Record<string, number>> | null } | null = null;
    let couponId: string;
    if ('promotionCode' in request) {
      const { state: claim } = await session.load(promotionCodeClaimStream(environmentId, request.promotionCode), codeClaimEvolver);
      if (claim.ownerId === null) throw ValidationError.at(`${at}/promotionCode`, 'names no promotion code of this environment');
      const stream = promotionCodeStream(environmentId, claim.ownerId);
      const { state } = await session.load(stream, promotionCodeEvolver);
      const events = decideRedeemPromotionCode(
        { promotionCodeId: claim.ownerId, redemptionId: id, firstTimeCustomer: redeemer.firstTimeCustomer },
        state,
        meta,
      );
      session.append(stream, events);
      couponId = events[0].data.couponId;
      const { code, restrictions } = existingPromotionCode(state, claim.ownerId);
      promotionCode = { id: claim.ownerId, code, minimumAmount: restrictions.minimumAmount };
    } else {
      couponId = request.couponId;
    }
    if (redeemed.some((discount) => discount.couponId === couponId)) throw ValidationError.at(at, 'redeems a coupon already among the discounts');
    const stream = couponStream(environmentId, couponId);
    const { state } = await session.load(stream, couponEvolver);
    if (state.status === 'none') throw ValidationError.at(`${at}/couponId`, 'names no coupon of this environment');
    session.append(
      stream,
      decideRedeemCoupon({ couponId, redemptionId: id, promotionCodeId: promotionCode?.id ?? null, redeemedBy: redeemer.redeemedBy }, state, meta),
    );
    const coupon = existingCoupon(state, couponId);
    const amountOff = coupon.amountOff === null ? null : (coupon.amountOff[currency ?? ''] ?? null);
    if (coupon.amountOff !== null && amountOff === null) throw ValidationError.at(at, noAmountIn('the coupon has no amountOff', currency));
    const minimumAmount = promotionCode?.minimumAmount ? (promotionCode.minimumAmount[currency ?? ''] ?? null) : null;
    if (promotionCode?.minimumAmount && minimumAmount === null) throw ValidationError.at(at, noAmountIn('the promotion code has no minimumAmount', currency));
    redeemed.push({
      id,
      couponId,
      promotionCodeId: promotionCode?.id ?? null,
      promotionCode: promotionCode?.code ?? null,
      name: coupon.name,
      percentOff: coupon.percentOff,
      amountOff,
      duration: coupon.duration,
      durationInMonths: coupon.durationInMonths,
      productIds: coupon.appliesTo?.productIds ?? null,
      minimumAmount,
    });
  }
  return redeemed;
}

function noAmountIn(what: string, currency: string | null): string {
  return currency === null ? `${what} without a currency: give the customer a currency first` : `${what} in ${currency}`;
}
