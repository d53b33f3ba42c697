import { CommandContext } from '@billing/event-store';

export class UpdatePaymentSettingsCommand {
  constructor(
    readonly environmentId: string,
    readonly retryDays: unknown,
    readonly context: CommandContext,
  ) {}
}
