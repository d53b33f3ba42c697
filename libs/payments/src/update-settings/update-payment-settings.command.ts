import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { PaymentSettings } from '../domain';

export class UpdatePaymentSettingsCommand extends Command<Written<PaymentSettings>> {
  constructor(
    readonly environmentId: string,
    /** The PUT body's members, validated by the decider. */
    readonly settings: { readonly retryDays: unknown; readonly paymentTermsDays: unknown; readonly afterLastFailure: unknown },
    readonly context: CommandContext,
  ) {
    super();
  }
}
