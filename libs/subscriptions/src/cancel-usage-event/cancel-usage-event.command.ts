import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';

/** A usage event as recorded, with when it was cancelled. */
export interface CancelledUsageEvent {
  readonly id: string;
  readonly subscriptionId: string;
  readonly metricCode: string;
  readonly timestamp: string;
  readonly properties: Record<string, unknown>;
  readonly cancelledAt: string;
}

/** POST /usage-events/{id}/cancel. */
export class CancelUsageEventCommand extends Command<CancelledUsageEvent> {
  constructor(
    readonly environmentId: string,
    readonly eventId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
