import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { PaymentSettings } from '../domain';

export class UpdatePaymentSettingsCommand extends Command<{ settings: PaymentSettings; version: number }> {
  constructor(
    readonly environmentId: string,
    readonly retryDays: unknown,
    readonly context: CommandContext,
  ) {
    super();
  }
}
