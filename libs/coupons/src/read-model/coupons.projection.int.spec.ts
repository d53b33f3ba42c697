import { randomUUID } from 'node:crypto';
import { foldEvents } from '@billing/shared-kernel';
import { metadataAt } from '@billing/testing';
import { append, projectionSpec } from '@billing/testing/projection-spec';
import {
  Coupon,
  CouponEvent,
  couponEvolver,
  CreateCouponInput,
  decideArchiveCoupon,
  decideClaimCode,
  decideCreateCoupon,
  decideCreatePromotionCode,
  decideRedeemCoupon,
  decideRedeemPromotionCode,
  codeClaimEvolver,
  promotionCodeEvolver,
} from '../domain';
import { couponCodeStream, couponStream, promotionCodeStream } from '../streams';
import { couponsProjection } from './coupons.projection';

/** The `coupons.read-model` projection on real Postgres: coupons and promotion codes made by the real deciders, then their rows. */
const spec = projectionSpec(couponsProjection);
const CREATED = '2026-01-15T10:00:00.000Z';
const LATER = '2026-02-01T12:00:00.000Z';
const input: CreateCouponInput = {
  code: 'WELCOME',
  name: 'Welcome 10 %',
  percentOff: 10,
  amountOff: null,
  duration: 'repeating',
  durationInMonths: 3,
  appliesTo: null,
  maxRedemptions: 100,
  redeemBy: null,
};
const coupons = `select id, position::text, version, state, view from coupons where environment_id = $1`;
const promotionCodes = `select id, position::text, version, state, view from promotion_codes where environment_id = $1`;

const create = (couponId: string) => decideCreateCoupon({ couponId, input }, couponEvolver.initialState(), metadataAt(CREATED));
const coupon = (couponId: string, ...later: CouponEvent[]) => foldEvents(couponEvolver, [...create(couponId), ...later]) as Coupon;
const redeem = (couponId: string, promotionCodeId: string | null, ...before: CouponEvent[]) =>
  decideRedeemCoupon(
    { couponId, redemptionId: randomUUID(), promotionCodeId, redeemedBy: { type: 'customer', id: randomUUID() } },
    coupon(couponId, ...before),
    metadataAt(LATER),
  );

describe('coupons.read-model projection (Postgres)', () => {
  it('given a coupon created, then one row: its terms, no redemption yet, version 1, at the creating position', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const expected = { ...input, id, status: 'active', timesRedeemed: 0, createdAt: CREATED, updatedAt: null, archivedAt: null };
    await spec.given(append(couponStream(env, id), create(id))).then(async (query, { given }) => {
      expect(await query(coupons, [env])).toEqual([{ id, position: given[0].globalPosition, version: 1, state: expected, view: expected }]);
    });
  });

  it('given a coupon, when it is redeemed twice and archived in a later batch, then its row counts both redemptions from the stored state', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const first = redeem(id, null);
    const second = redeem(id, null, ...first);
    const archived = decideArchiveCoupon({ couponId: id }, coupon(id, ...first, ...second), metadataAt(LATER));
    await spec
      .given(append(couponStream(env, id), create(id)))
      .when(append(couponStream(env, id), [...first, ...second], LATER), append(couponStream(env, id), archived, LATER))
      .then(async (query, { given }) => {
        const [row] = await query<{ position: string; version: number; view: unknown }>(coupons, [env]);
        expect(row).toMatchObject({ position: given[0].globalPosition, version: 4 });
        expect(row.view).toEqual({ ...input, id, status: 'archived', timesRedeemed: 2, createdAt: CREATED, updatedAt: LATER, archivedAt: LATER });
      });
  });

  it('given a promotion code of a coupon redeemed once, then its own row with its restrictions and one redemption', async () => {
    const env = randomUUID();
    const [couponId, id] = [randomUUID(), randomUUID()];
    const restrictions = { firstTimeOnly: true, minimumAmount: { EUR: 5000 } };
    const created = decideCreatePromotionCode(
      { promotionCodeId: id, input: { couponId, code: 'Spring26', maxRedemptions: 5, expiresAt: LATER, restrictions }, coupon: coupon(couponId) },
      promotionCodeEvolver.initialState(),
      metadataAt(CREATED),
    );
    const redeemed = decideRedeemPromotionCode(
      { promotionCodeId: id, redemptionId: randomUUID(), firstTimeCustomer: true },
      foldEvents(promotionCodeEvolver, created),
      metadataAt(CREATED),
    );
    const view = {
      id,
      status: 'active',
      couponId,
      code: 'Spring26',
      maxRedemptions: 5,
      expiresAt: LATER,
      restrictions,
      timesRedeemed: 1,
      createdAt: CREATED,
      archivedAt: null,
    };
    await spec
      .given(append(couponStream(env, couponId), create(couponId)), append(promotionCodeStream(env, id), [...created, ...redeemed]))
      .then(async (query, { given }) => {
        const position = given.find((event) => event.streamId === id)!.globalPosition;
        expect(await query(promotionCodes, [env])).toEqual([{ id, position, version: 2, state: view, view }]);
      });
  });

  it('ignores a code’s claim stream (coupon-code): no coupon row, no promotion code row', async () => {
    const env = randomUUID();
    const claimed = decideClaimCode({ code: 'WELCOME', ownerId: randomUUID(), problem: 'coupon-code-taken' }, codeClaimEvolver.initialState());
    await spec.given(append(couponCodeStream(env, 'WELCOME'), claimed)).then(async (query) => {
      expect({ coupons: await query(coupons, [env]), promotionCodes: await query(promotionCodes, [env]) }).toEqual({ coupons: [], promotionCodes: [] });
    });
  });
});
