import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Subscription } from '../domain';

/** PUT /subscriptions/{id}/resume: the pause ends, billing goes on from today. */
export class ResumeSubscriptionCommand extends Command<Written<Subscription>> {
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
