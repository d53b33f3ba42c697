import { CommandContext } from '@billing/event-store';
import { CallerContext } from '@billing/platform';

/** Sends a delivery again: it becomes due now (real time, whatever the environment's test clock says), whatever its state. */
export class RedeliverNotificationCommand {
  constructor(
    readonly caller: CallerContext,
    readonly deliveryId: string,
    readonly context: CommandContext,
  ) {}
}
