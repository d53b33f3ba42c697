import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Subscription } from '../domain';

/** DELETE /subscriptions/{subscriptionId}/changes/{changeId}: a pending change will not apply. */
export class DropChangeCommand extends Command<Written<Subscription>> {
  constructor(
    readonly environmentId: string,
    readonly subscriptionId: string,
    readonly changeId: string,
    readonly context: CommandContext,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
