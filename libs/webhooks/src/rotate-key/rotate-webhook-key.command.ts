import { CommandContext } from '@billing/event-store';
import { CallerContext } from '@billing/platform';

export class RotateWebhookKeyCommand {
  constructor(readonly caller: CallerContext, readonly id: string, readonly context: CommandContext) {}
}
