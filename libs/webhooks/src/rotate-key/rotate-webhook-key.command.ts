import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { CallerContext } from '@billing/platform';
import { WebhookSubscriptionWithKey } from '../subscribe/subscribe-webhook.command';

export class RotateWebhookKeyCommand extends Command<WebhookSubscriptionWithKey> {
  constructor(
    readonly caller: CallerContext,
    readonly id: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
