import { CallerContext } from '@billing/platform';

/** Sends a delivery again: it becomes due at `now`, whatever its state. */
export class RedeliverNotification {
  constructor(readonly caller: CallerContext, readonly deliveryId: string, readonly now: Date) {}
}
