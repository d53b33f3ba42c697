import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideDropChange, existingSubscription, Subscription, subscriptionEvolver } from '../domain';
import { subscriptionStream } from '../streams';
import { DropChangeCommand } from './drop-change.command';

@CommandHandler(DropChangeCommand)
export class DropChangeHandler implements ICommandHandler<DropChangeCommand, Written<Subscription>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, subscriptionId, changeId, context, expectedVersion }: DropChangeCommand): Promise<Written<Subscription>> {
    const { state, version } = await this.commands.handle(
      subscriptionStream(environmentId, subscriptionId),
      subscriptionEvolver,
      (current) => decideDropChange({ subscriptionId, changeId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: subscriptionId, version, state: existingSubscription(state, subscriptionId) };
  }
}
