import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Coupon } from '../domain';

/** PUT /coupons/{couponId}/archive: no new redemptions; discounts already applied run their course. */
export class ArchiveCouponCommand extends Command<Written<Coupon>> {
  constructor(
    readonly environmentId: string,
    readonly couponId: string,
    readonly context: CommandContext,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
