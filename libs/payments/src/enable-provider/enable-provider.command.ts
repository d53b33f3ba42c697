import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { PaymentProvider } from '../domain';

/** POST /paymentproviders/enable as it arrives: the handler validates it (the domain's rules, pointers at /name and /credentials). */
export class EnableProviderCommand extends Command<{ provider: PaymentProvider; version: number }> {
  constructor(
    readonly environmentId: string,
    readonly name: unknown,
    readonly credentials: unknown,
    readonly context: CommandContext,
  ) {
    super();
  }
}
