import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { CallerContext } from '@billing/platform';

export class UnsubscribeWebhookCommand extends Command<void> {
  constructor(
    readonly caller: CallerContext,
    readonly id: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
