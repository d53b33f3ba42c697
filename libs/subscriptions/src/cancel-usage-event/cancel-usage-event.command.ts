import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { CancelledUsageEvent } from './cancel-usage-event.handler';

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
