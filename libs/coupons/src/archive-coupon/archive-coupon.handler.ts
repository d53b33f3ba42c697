import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { Coupon, couponEvolver, decideArchiveCoupon, existingCoupon } from '../domain';
import { couponStream } from '../streams';
import { ArchiveCouponCommand } from './archive-coupon.command';

@CommandHandler(ArchiveCouponCommand)
export class ArchiveCouponHandler implements ICommandHandler<ArchiveCouponCommand, Written<Coupon>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, couponId, context, expectedVersion }: ArchiveCouponCommand): Promise<Written<Coupon>> {
    const { state, version } = await this.commands.handle(
      couponStream(environmentId, couponId),
      couponEvolver,
      (current) => decideArchiveCoupon({ couponId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: couponId, version, state: existingCoupon(state, couponId) };
  }
}
