import { ValidationError } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { codeClaimEvolver, decideClaimCode } from './code-claim';
import {
  CouponCreated,
  couponEvolver,
  CouponRedeemed,
  decideArchiveCoupon,
  decideCreateCoupon,
  decideRedeemCoupon,
  decideUpdateCoupon,
  validateCreateCoupon,
  validateUpdateCoupon,
} from './coupon';
import { decideRedeemPromotionCode, PromotionCodeCreated, promotionCodeEvolver, validateCreatePromotionCode } from './promotion-code';

const T0 = '2026-01-15T10:00:00.000Z';
const meta = metadataAt(T0);
const couponId = 'c0000000-0000-4000-8000-000000000001';
const input = {
  code: null,
  name: '10 %',
  percentOff: 10,
  amountOff: null,
  duration: 'once' as const,
  durationInMonths: null,
  maxRedemptions: 1,
  redeemBy: '2026-02-01T00:00:00.000Z',
  appliesTo: null,
};
const created: CouponCreated = { type: 'CouponCreated', schemaVersion: 1, data: { couponId, ...input, createdAt: T0 } };
const redemption = { couponId, redemptionId: 'r1', promotionCodeId: null, redeemedBy: { type: 'subscription' as const, id: 's1' } };
const redeemed: CouponRedeemed = { type: 'CouponRedeemed', schemaVersion: 1, data: { ...redemption, redeemedAt: T0 } };
const spec = deciderSpec(couponEvolver);

function pointersOf(validate: () => unknown): string[] {
  try {
    validate();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors.map((e) => e.pointer).sort();
  }
  throw new Error('expected a ValidationError');
}

describe('the Coupon decider', () => {
  it('given nothing, when created, then CouponCreated; given a coupon, then 409 coupon-exists', () => {
    spec
      .given([])
      .when((state) => decideCreateCoupon({ couponId, input }, state, meta))
      .then([created]);
    spec
      .given([created])
      .when((state) => decideCreateCoupon({ couponId, input }, state, meta))
      .thenThrows({ code: 'coupon-exists' });
  });

  it('given a coupon with redemptions left, when redeemed before redeemBy, then CouponRedeemed; used up, then 409 coupon-exhausted', () => {
    spec
      .given([created])
      .when((state) => decideRedeemCoupon(redemption, state, meta))
      .then([redeemed]);
    spec
      .given([created, redeemed])
      .when((state) => decideRedeemCoupon(redemption, state, meta))
      .thenThrows({ code: 'coupon-exhausted' });
  });

  it('given a coupon, when redeemed after redeemBy on the command clock, then 409 coupon-expired; archived, then 409 coupon-archived', () => {
    spec
      .given([created])
      .when((state) => decideRedeemCoupon(redemption, state, metadataAt('2026-02-01T00:00:00.001Z')))
      .thenThrows({ code: 'coupon-expired' });
    const archived = decideArchiveCoupon({ couponId }, couponEvolver.evolve(couponEvolver.initialState(), created), meta);
    spec
      .given([created, ...archived])
      .when((state) => decideRedeemCoupon(redemption, state, meta))
      .thenThrows({ code: 'coupon-archived' });
    spec
      .given([created, ...archived])
      .when((state) => decideArchiveCoupon({ couponId }, state, meta))
      .thenThrows({ code: 'coupon-archived' });
    spec
      .given([])
      .when((state) => decideArchiveCoupon({ couponId }, state, meta))
      .thenThrows({ code: 'not-found' });
  });

  it('given a coupon, when updated, then maxRedemptions only rises (null is unlimited, the top) and the other members are kept', () => {
    spec
      .given([created])
      .when((state) => decideUpdateCoupon({ couponId, input: { maxRedemptions: 3 } }, state, meta))
      .then([{ type: 'CouponUpdated', schemaVersion: 1, data: { couponId, name: '10 %', maxRedemptions: 3, redeemBy: input.redeemBy, updatedAt: T0 } }]);
    spec
      .given([created])
      .when((state) => decideUpdateCoupon({ couponId, input: { maxRedemptions: null } }, state, meta))
      .then([{ type: 'CouponUpdated', schemaVersion: 1, data: { couponId, name: '10 %', maxRedemptions: null, redeemBy: input.redeemBy, updatedAt: T0 } }]);
    const unlimited = { ...created, data: { ...created.data, maxRedemptions: null } };
    spec
      .given([unlimited])
      .when((state) => decideUpdateCoupon({ couponId, input: { maxRedemptions: 5 } }, state, meta))
      .thenThrows({ kind: 'validation' });
  });
});

describe('validateCreateCoupon / validateUpdateCoupon', () => {
  it('accepts a percentage with 2 decimals and an amount per currency (uppercased)', () => {
    expect(validateCreateCoupon({ name: 'a', percentOff: 12.5, duration: 'repeating', durationInMonths: 120 })).toMatchObject({
      percentOff: 12.5,
      durationInMonths: 120,
    });
    expect(validateCreateCoupon({ name: 'a', amountOff: { eur: 1 }, duration: 'once' })).toMatchObject({ amountOff: { EUR: 1 }, percentOff: null });
  });

  it.each([
    [{ percentOff: 10, amountOff: { EUR: 1 }, duration: 'once' }, ['/amountOff', '/percentOff']],
    [{ percentOff: 0.001, duration: 'once' }, ['/percentOff']],
    [{ percentOff: 100.01, duration: 'once' }, ['/percentOff']],
    [{ percentOff: '10', duration: 'once' }, ['/percentOff']],
    [{ amountOff: {}, duration: 'once' }, ['/amountOff']],
    [{ amountOff: { EUR: 1.5 }, duration: 'once' }, ['/amountOff/EUR']],
    [{ amountOff: { EUR: 1, eur: 2 }, duration: 'once' }, ['/amountOff/eur']],
    [{ percentOff: 1, duration: 'repeating', durationInMonths: 0 }, ['/durationInMonths']],
    [{ percentOff: 1, duration: 'once', maxRedemptions: 0, appliesTo: { productIds: [] } }, ['/appliesTo/productIds', '/maxRedemptions']],
    [{ percentOff: 1, duration: 'once', code: 'two words' }, ['/code']],
  ])('refuses %j at %j', (body, pointers) => {
    expect(pointersOf(() => validateCreateCoupon({ name: 'a', ...body }))).toEqual(pointers);
  });

  it('an update takes name, maxRedemptions and redeemBy (null clears) and refuses anything else', () => {
    expect(validateUpdateCoupon({ redeemBy: null, maxRedemptions: null })).toEqual({ redeemBy: null, maxRedemptions: null });
    expect(pointersOf(() => validateUpdateCoupon({ duration: 'forever', name: '' }))).toEqual(['/duration', '/name']);
  });
});

describe('the PromotionCode decider and code claims', () => {
  const promotionCodeId = 'p0000000-0000-4000-8000-000000000001';
  const promotion: PromotionCodeCreated = {
    type: 'PromotionCodeCreated',
    schemaVersion: 1,
    data: {
      promotionCodeId,
      couponId,
      code: 'Spring',
      maxRedemptions: 1,
      expiresAt: '2026-01-20T00:00:00.000Z',
      restrictions: { firstTimeOnly: true, minimumAmount: null },
      createdAt: T0,
    },
  };
  const promotionSpec = deciderSpec(promotionCodeEvolver);
  const command = { promotionCodeId, redemptionId: 'r1', firstTimeCustomer: true };

  it('given a code, when redeemed by a first-time customer, then PromotionCodeRedeemed; then exhausted, expired, restricted', () => {
    promotionSpec
      .given([promotion])
      .when((state) => decideRedeemPromotionCode(command, state, meta))
      .then([{ type: 'PromotionCodeRedeemed', schemaVersion: 1, data: { promotionCodeId, couponId, redemptionId: 'r1', redeemedAt: T0 } }]);
    const used = decideRedeemPromotionCode(command, promotionCodeEvolver.evolve(promotionCodeEvolver.initialState(), promotion), meta);
    promotionSpec
      .given([promotion, ...used])
      .when((state) => decideRedeemPromotionCode(command, state, meta))
      .thenThrows({ code: 'promotion-code-exhausted' });
    promotionSpec
      .given([promotion])
      .when((state) => decideRedeemPromotionCode(command, state, metadataAt('2026-01-21T00:00:00.000Z')))
      .thenThrows({ code: 'promotion-code-expired' });
    promotionSpec
      .given([promotion])
      .when((state) => decideRedeemPromotionCode({ ...command, firstTimeCustomer: false }, state, meta))
      .thenThrows({ code: 'promotion-code-restricted' });
  });

  it('a code is claimed once: the same owner again is nothing, another owner is 409', () => {
    const claim = decideClaimCode({ code: 'A', ownerId: 'o1', problem: 'promotion-code-taken' }, codeClaimEvolver.initialState());
    const state = codeClaimEvolver.evolve(codeClaimEvolver.initialState(), claim[0]);
    expect(decideClaimCode({ code: 'a', ownerId: 'o1', problem: 'promotion-code-taken' }, state)).toEqual([]);
    expect(() => decideClaimCode({ code: 'a', ownerId: 'o2', problem: 'promotion-code-taken' }, state)).toThrow(
      expect.objectContaining({ code: 'promotion-code-taken' }),
    );
  });

  it('validates a promotion code body at every pointer', () => {
    expect(
      pointersOf(() => validateCreatePromotionCode({ couponId: 'x', code: '', restrictions: { firstTimeOnly: 'yes', minimumAmount: { ZZZ: 1 }, other: 1 } })),
    ).toEqual(['/code', '/couponId', '/restrictions/firstTimeOnly', '/restrictions/minimumAmount/ZZZ', '/restrictions/other']);
  });
});
