import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { PaymentProvider } from '../domain';

export class DisableProviderCommand extends Command<Written<PaymentProvider>> {
  constructor(
    readonly environmentId: string,
    readonly name: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
