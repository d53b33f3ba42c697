import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Subscription } from '../domain';

/** PUT /subscriptions/{id}/pause: nothing is billed after today until it resumes (at resumeAt, or by hand). */
export class PauseSubscriptionCommand extends Command<Written<Subscription>> {
  constructor(
    readonly environmentId: string,
    readonly subscriptionId: string,
    /** The day it resumes by itself (as given: the decider checks it); null: only by hand. */
    readonly resumeAt: unknown,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
