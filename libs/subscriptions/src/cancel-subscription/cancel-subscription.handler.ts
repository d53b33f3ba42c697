import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideCancelSubscription, existingSubscription, Subscription, subscriptionEvolver } from '../domain';
import { subscriptionStream } from '../streams';
import { CancelSubscriptionCommand } from './cancel-subscription.command';

@CommandHandler(CancelSubscriptionCommand)
export class CancelSubscriptionHandler implements ICommandHandler<CancelSubscriptionCommand, Written<Subscription>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, subscriptionId, context, expectedVersion }: CancelSubscriptionCommand): Promise<Written<Subscription>> {
    const { state, version } = await this.commands.handle(
      subscriptionStream(environmentId, subscriptionId),
      subscriptionEvolver,
      (current) => decideCancelSubscription({ subscriptionId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: subscriptionId, version, state: existingSubscription(state, subscriptionId) };
  }
}
