import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { PaymentProvider } from '../domain';

export class DisableProviderCommand extends Command<{ provider: PaymentProvider; version: number }> {
  constructor(
    readonly environmentId: string,
    readonly name: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
