import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { CallerContext } from '@billing/platform';

/** Sends a delivery again: it becomes due now (real time, whatever the environment's test clock says), whatever its state. */
export class RedeliverNotificationCommand extends Command<void> {
  constructor(
    readonly caller: CallerContext,
    readonly deliveryId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
