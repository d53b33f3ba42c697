import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { ScopedClock } from '@billing/platform';
import { ConflictError, NotFoundError } from '@billing/shared-kernel';
import { WebhookDispatcher } from '../delivery/dispatcher';
import { DELIVERIES_CHANNEL } from '../projections/fan-out.reactor';
import { RedeliverNotificationCommand } from './redeliver.command';

/**
 * Resets the delivery to pending, due now, and marks it as a manual
 * redelivery: it is attempted once even after the 72-hour window (further
 * retries still stop at the window). The attempt history is kept; the new
 * attempt adds a row. Deliveries are operational state, not events, so this
 * updates the delivery row, in the command path's transaction. Due now in real time (the base clock),
 * as the dispatcher that sends it reads it: not in the environment's time,
 * which a test clock may put years ahead.
 */
@CommandHandler(RedeliverNotificationCommand)
export class RedeliverNotificationHandler implements ICommandHandler<RedeliverNotificationCommand, void> {
  constructor(
    private readonly commands: CommandPath,
    private readonly dispatcher: WebhookDispatcher,
    private readonly clock: ScopedClock,
  ) {}

  async execute({ caller, deliveryId, context }: RedeliverNotificationCommand): Promise<void> {
    const now = this.clock.base.now();
    await this.commands.run(context, 'reject', async (session) => {
      const [found] = await session.query<{ subscription_status: string | null }>(
        `select s.status as subscription_status
           from webhook_deliveries d
           left join webhook_subscriptions s on s.environment_id = d.environment_id and s.id = d.subscription_id
          where d.environment_id = $1 and d.id = $2
          for update of d`,
        [caller.environmentId, deliveryId],
      );
      if (!found) throw new NotFoundError('webhook delivery', deliveryId);
      if (found.subscription_status !== 'active') {
        throw new ConflictError(
          'webhook-not-active',
          `the webhook subscription of this delivery is ${found.subscription_status ?? 'gone'}; subscribe again first`,
        );
      }
      await session.query(
        `update webhook_deliveries set status = 'pending', next_attempt_at = $3, lease_expires_at = null, lease_token = null,
                redelivery = true
          where environment_id = $1 and id = $2`,
        [caller.environmentId, deliveryId, now],
      );
      await session.query(`select pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    });
    this.dispatcher.wake();
  }
}
