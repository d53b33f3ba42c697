import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideUpdatePaymentSettings, PaymentSettings, paymentSettingsEvolver } from '../domain';
import { paymentSettingsStream } from '../streams';
import { UpdatePaymentSettingsCommand } from './update-payment-settings.command';

/** The environment's retry schedule and afterLastFailure for collections that start from now on (a started collection keeps its own) and its payment terms. */
@CommandHandler(UpdatePaymentSettingsCommand)
export class UpdatePaymentSettingsHandler implements ICommandHandler<UpdatePaymentSettingsCommand, Written<PaymentSettings>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, settings, context }: UpdatePaymentSettingsCommand): Promise<Written<PaymentSettings>> {
    const { state, version } = await this.commands.handle(
      paymentSettingsStream(environmentId),
      paymentSettingsEvolver,
      (current) => decideUpdatePaymentSettings(settings, current, context.meta),
      context,
      { conflicts: { retries: 1 } },
    );
    return { id: environmentId, version, state };
  }
}
