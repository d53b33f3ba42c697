import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { NotFoundError } from '@billing/shared-kernel';
import { decideDisableProvider, isKnownProvider, PaymentProvider, paymentProviderEvolver } from '../domain';
import { providerStream } from '../streams';
import { DisableProviderCommand } from './disable-provider.command';

/** Disables a provider: new payments through it are refused; disabling again changes nothing. */
@CommandHandler(DisableProviderCommand)
export class DisableProviderHandler implements ICommandHandler<DisableProviderCommand, Written<PaymentProvider>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, name, context }: DisableProviderCommand): Promise<Written<PaymentProvider>> {
    // A name that is no provider names no resource here: 404, like a provider never enabled.
    if (!isKnownProvider(name)) throw new NotFoundError('payment provider', name);
    const { state, version } = await this.commands.handle(
      providerStream(environmentId, name),
      paymentProviderEvolver,
      (current) => decideDisableProvider({ name }, current, context.meta),
      context,
    );
    return { id: name, version, state: state as PaymentProvider };
  }
}
