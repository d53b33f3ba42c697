import { Module } from '@nestjs/common';
import { ArchiveCouponHandler } from './archive-coupon/archive-coupon.handler';
import { ArchivePromotionCodeHandler } from './archive-promotion-code/archive-promotion-code.handler';
import { CreateCouponHandler } from './create-coupon/create-coupon.handler';
import { CreatePromotionCodeHandler } from './create-promotion-code/create-promotion-code.handler';
import { CouponsController } from './http/coupons.controller';
import { PromotionCodesController } from './http/promotion-codes.controller';
import { CouponsReadModel } from './read-model/coupons.read-model';
import { UpdateCouponHandler } from './update-coupon/update-coupon.handler';

/** The coupons' Nest wiring; everything else the app needs is in `couponsContext`. */
@Module({
  controllers: [CouponsController, PromotionCodesController],
  providers: [CouponsReadModel, CreateCouponHandler, UpdateCouponHandler, ArchiveCouponHandler, CreatePromotionCodeHandler, ArchivePromotionCodeHandler],
})
export class CouponsModule {}
