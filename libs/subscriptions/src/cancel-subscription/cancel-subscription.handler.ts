import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { decideCancelSubscription, existingSubscription, Subscription, subscriptionEvolver } from '../domain';
import { subscriptionStream } from '../streams';
import { CancelSubscriptionCommand } from './cancel-subscription.command';

@CommandHandler(CancelSubscriptionCommand)
export class CancelSubscriptionHandler implements ICommandHandler<CancelSubscriptionCommand, { subscription: Subscription; version: number }> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, subscriptionId, context, expectedVersion }: CancelSubscriptionCommand): Promise<{ subscription: Subscription; version: number }> {
    const { state, version } = await this.commands.handle(
      subscriptionStream(environmentId, subscriptionId),
      subscriptionEvolver,
      (current) => decideCancelSubscription({ subscriptionId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { subscription: existingSubscription(state, subscriptionId), version };
  }
}
