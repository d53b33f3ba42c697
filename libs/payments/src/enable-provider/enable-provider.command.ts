import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { PaymentProvider } from '../domain';

/** POST /paymentproviders/enable as it arrives: the handler validates it (the domain's rules, pointers at /name and /credentials). */
export class EnableProviderCommand extends Command<Written<PaymentProvider>> {
  constructor(
    readonly environmentId: string,
    readonly name: unknown,
    readonly credentials: unknown,
    readonly context: CommandContext,
  ) {
    super();
  }
}
