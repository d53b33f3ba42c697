import { CommandContext } from '@billing/event-store';

export class CancelSubscriptionCommand {
  constructor(
    readonly environmentId: string,
    readonly subscriptionId: string,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {}
}
