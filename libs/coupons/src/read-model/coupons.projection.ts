import { EntityManager } from 'typeorm';
import { Projection, RecordedEvent, upsertViewRows, ViewTable, viewRows } from '@billing/event-store';
import {
  COUPON_STREAM,
  CouponEvent,
  couponEvolver,
  CouponState,
  PROMOTION_CODE_STREAM,
  PromotionCodeEvent,
  promotionCodeEvolver,
  PromotionCodeState,
} from '../domain';
import { CouponView, couponViewOf, PromotionCodeView, promotionCodeViewOf } from '../views';

const COUPONS: ViewTable<CouponState, CouponEvent, CouponView> = { table: 'coupons', streamType: COUPON_STREAM, evolver: couponEvolver, toView: couponViewOf };
const PROMOTION_CODES: ViewTable<PromotionCodeState, PromotionCodeEvent, PromotionCodeView> = {
  table: 'promotion_codes',
  streamType: PROMOTION_CODE_STREAM,
  evolver: promotionCodeEvolver,
  toView: promotionCodeViewOf,
};

/**
 * Keeps `coupons` and `promotion_codes` (one row per stream: state, view,
 * version), set-wise: per table and batch one select and one upsert.
 */
export const couponsProjection: Projection = {
  name: 'coupons.read-model',
  tables: ['coupons', 'promotion_codes'],
  streamTypes: [COUPON_STREAM, PROMOTION_CODE_STREAM],
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    await upsertViewRows(COUPONS.table, await viewRows(COUPONS, events, tx), tx);
    await upsertViewRows(PROMOTION_CODES.table, await viewRows(PROMOTION_CODES, events, tx), tx);
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate coupons, promotion_codes`);
  },
};
