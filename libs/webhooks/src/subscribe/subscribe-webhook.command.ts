import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { CallerContext } from '@billing/platform';

export interface WebhookSubscriptionWithKey {
  readonly id: string;
  readonly url: string;
  readonly signatureKey: string;
}

export class SubscribeWebhookCommand extends Command<WebhookSubscriptionWithKey> {
  constructor(
    readonly caller: CallerContext,
    /** As received: validated and normalised by the handler. */
    readonly url: string,
    /** The X-version header, if any. */
    readonly versionHeader: string | undefined,
    readonly context: CommandContext,
  ) {
    super();
  }
}
