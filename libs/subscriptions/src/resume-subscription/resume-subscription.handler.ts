import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideResumeSubscription, existingSubscription, Subscription, subscriptionEvolver } from '../domain';
import { subscriptionStream } from '../streams';
import { ResumeSubscriptionCommand } from './resume-subscription.command';

@CommandHandler(ResumeSubscriptionCommand)
export class ResumeSubscriptionHandler implements ICommandHandler<ResumeSubscriptionCommand, Written<Subscription>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, subscriptionId, context, expectedVersion }: ResumeSubscriptionCommand): Promise<Written<Subscription>> {
    const { state, version } = await this.commands.handle(
      subscriptionStream(environmentId, subscriptionId),
      subscriptionEvolver,
      (current) => decideResumeSubscription({ subscriptionId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: subscriptionId, version, state: existingSubscription(state, subscriptionId) };
  }
}
