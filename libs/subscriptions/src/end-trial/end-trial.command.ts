import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Subscription } from '../domain';

/** PUT /subscriptions/{id}/end-trial: the trial ends now, today becomes the first day billed. */
export class EndTrialCommand extends Command<Written<Subscription>> {
  constructor(
    readonly environmentId: string,
    readonly subscriptionId: string,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
