import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Coupon, UpdateCouponInput } from '../domain';

/** PUT /coupons/{couponId}: name, maxRedemptions (upward), redeemBy. */
export class UpdateCouponCommand extends Command<Written<Coupon>> {
  constructor(
    readonly environmentId: string,
    readonly couponId: string,
    readonly input: UpdateCouponInput,
    readonly context: CommandContext,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
