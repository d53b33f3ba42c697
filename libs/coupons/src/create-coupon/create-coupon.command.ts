import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Coupon, CreateCouponInput } from '../domain';

/** POST /coupons, validated (validateCreateCoupon). */
export class CreateCouponCommand extends Command<Written<Coupon>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreateCouponInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
