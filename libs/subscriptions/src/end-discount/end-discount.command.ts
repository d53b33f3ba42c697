import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Subscription } from '../domain';

/** DELETE /subscriptions/{subscriptionId}/discounts/{discountId}: the discount ends today. */
export class EndDiscountCommand extends Command<Written<Subscription>> {
  constructor(
    readonly environmentId: string,
    readonly subscriptionId: string,
    readonly discountId: string,
    readonly context: CommandContext,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
