import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { decideDelete, webhookSubscriptionEvolver } from '../domain';
import { webhookSubscriptionStream } from '../streams';
import { UnsubscribeWebhookCommand } from './unsubscribe-webhook.command';

/** Idempotent for a subscription that exists (deleting twice is fine); 404 for one that never did. */
@CommandHandler(UnsubscribeWebhookCommand)
export class UnsubscribeWebhookHandler implements ICommandHandler<UnsubscribeWebhookCommand, void> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ caller, id, context }: UnsubscribeWebhookCommand): Promise<void> {
    await this.commands.handle(webhookSubscriptionStream(caller.environmentId, id), webhookSubscriptionEvolver, (state) => decideDelete(state, id), context, {
      conflicts: { retries: 1 },
    });
  }
}
