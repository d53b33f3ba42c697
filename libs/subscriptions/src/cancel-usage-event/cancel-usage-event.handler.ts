import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { NotFoundError } from '@billing/shared-kernel';
import { decideCancelUsageEvent, subscriptionEvolver } from '../domain';
import { subscriptionStream } from '../streams';
import { UsageStore } from '../usage/usage-store';
import { CancelledUsageEvent, CancelUsageEventCommand } from './cancel-usage-event.command';

/**
 * One transaction: the event's UsageEventCancelled appended to its
 * subscription's stream (at the version loaded) and its row in
 * usage_event_cancellations. A billing step of the same subscription that
 * rated the event meanwhile appends at the version it loaded, so one of the two
 * fails on the version and is decided again: either the period is billed with
 * the event and the cancellation is a 409, or it is billed without it.
 * Cancelling a cancelled event answers the cancellation recorded (the row is
 * written first: of concurrent cancellations one records, the others answer it).
 */
@CommandHandler(CancelUsageEventCommand)
export class CancelUsageEventHandler implements ICommandHandler<CancelUsageEventCommand, CancelledUsageEvent> {
  constructor(
    private readonly commands: CommandPath,
    private readonly store: UsageStore,
  ) {}

  execute({ environmentId, eventId, context }: CancelUsageEventCommand): Promise<CancelledUsageEvent> {
    return this.commands.run(context, 'reject', async (session) => {
      const event = await this.store.usageEvent(environmentId, eventId, session.tx);
      if (event === null) throw new NotFoundError('usage event', eventId);
      const view = (cancelledAt: Date): CancelledUsageEvent => ({
        id: event.id,
        subscriptionId: event.subscriptionId,
        metricCode: event.metricCode,
        timestamp: event.occurredAt.toISOString(),
        properties: event.properties,
        cancelledAt: cancelledAt.toISOString(),
      });
      const { recorded, cancelledAt } = await this.store.recordCancellation(environmentId, eventId, context.meta.now, session.tx);
      if (!recorded) return view(cancelledAt);
      const stream = subscriptionStream(environmentId, event.subscriptionId);
      const { state } = await session.load(stream, subscriptionEvolver);
      session.append(
        stream,
        decideCancelUsageEvent(
          { subscriptionId: event.subscriptionId, eventId, metricCode: event.metricCode, occurredAt: event.occurredAt },
          state,
          context.meta,
        ),
      );
      return view(cancelledAt);
    });
  }
}
