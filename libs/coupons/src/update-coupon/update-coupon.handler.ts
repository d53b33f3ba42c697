import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { Coupon, couponEvolver, decideUpdateCoupon, existingCoupon } from '../domain';
import { couponStream } from '../streams';
import { UpdateCouponCommand } from './update-coupon.command';

@CommandHandler(UpdateCouponCommand)
export class UpdateCouponHandler implements ICommandHandler<UpdateCouponCommand, Written<Coupon>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, couponId, input, context, expectedVersion }: UpdateCouponCommand): Promise<Written<Coupon>> {
    const { state, version } = await this.commands.handle(
      couponStream(environmentId, couponId),
      couponEvolver,
      (current) => decideUpdateCoupon({ couponId, input }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: couponId, version, state: existingCoupon(state, couponId) };
  }
}
