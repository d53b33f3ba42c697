import { CommandContext } from '@billing/event-store';
import { CallerContext } from '@billing/platform';

export class UnsubscribeWebhookCommand {
  constructor(readonly caller: CallerContext, readonly id: string, readonly context: CommandContext) {}
}
