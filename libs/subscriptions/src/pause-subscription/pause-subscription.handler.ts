import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decidePauseSubscription, existingSubscription, Subscription, subscriptionEvolver } from '../domain';
import { subscriptionStream } from '../streams';
import { PauseSubscriptionCommand } from './pause-subscription.command';

@CommandHandler(PauseSubscriptionCommand)
export class PauseSubscriptionHandler implements ICommandHandler<PauseSubscriptionCommand, Written<Subscription>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, subscriptionId, resumeAt, context, expectedVersion }: PauseSubscriptionCommand): Promise<Written<Subscription>> {
    const { state, version } = await this.commands.handle(
      subscriptionStream(environmentId, subscriptionId),
      subscriptionEvolver,
      (current) => decidePauseSubscription({ subscriptionId, resumeAt }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: subscriptionId, version, state: existingSubscription(state, subscriptionId) };
  }
}
