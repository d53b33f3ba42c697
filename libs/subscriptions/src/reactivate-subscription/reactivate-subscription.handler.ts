import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideReactivateSubscription, existingSubscription, Subscription, subscriptionEvolver } from '../domain';
import { subscriptionStream } from '../streams';
import { ReactivateSubscriptionCommand } from './reactivate-subscription.command';

@CommandHandler(ReactivateSubscriptionCommand)
export class ReactivateSubscriptionHandler implements ICommandHandler<ReactivateSubscriptionCommand, Written<Subscription>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, subscriptionId, context, expectedVersion }: ReactivateSubscriptionCommand): Promise<Written<Subscription>> {
    const { state, version } = await this.commands.handle(
      subscriptionStream(environmentId, subscriptionId),
      subscriptionEvolver,
      (current) => decideReactivateSubscription({ subscriptionId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: subscriptionId, version, state: existingSubscription(state, subscriptionId) };
  }
}
