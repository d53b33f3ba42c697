import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Subscription } from '../domain';

/** When a cancellation takes effect, and whether a cancel now credits the unused advance-billed days. */
export interface CancelOptions {
  readonly at: 'period_end' | 'now';
  readonly prorate: boolean;
}

export class CancelSubscriptionCommand extends Command<Written<Subscription>> {
  constructor(
    readonly environmentId: string,
    readonly subscriptionId: string,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
    readonly options: CancelOptions = { at: 'period_end', prorate: false },
  ) {
    super();
  }
}
