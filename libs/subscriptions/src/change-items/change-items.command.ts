import { Command } from '@nestjs/cqrs';
import { DiscountRequest } from '@billing/coupons';
import { CommandContext, Written } from '@billing/event-store';
import { ProrationBehavior, Subscription } from '../domain';

/** An item of a change as the caller gives it: the price (when named) is looked up by the handler. */
export interface RequestedChangeItem {
  readonly id: string | null;
  readonly priceId: string | null;
  readonly quantity: number | null;
  readonly delete: boolean | null;
}

/** POST /subscriptions/{id}/changes (and its preview) as domain input. */
export interface ChangeItemsInput {
  readonly items: readonly RequestedChangeItem[];
  readonly effective: string;
  readonly prorationBehavior: ProrationBehavior;
  /** Coupons to redeem with the change (not in a preview): they discount invoices whose period starts on or after its first day. */
  readonly discounts: readonly DiscountRequest[];
}

export class ChangeItemsCommand extends Command<Written<Subscription>> {
  constructor(
    readonly environmentId: string,
    readonly subscriptionId: string,
    readonly input: ChangeItemsInput,
    readonly context: CommandContext,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
