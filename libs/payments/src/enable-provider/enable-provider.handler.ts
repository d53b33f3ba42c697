import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { EnvironmentClock } from '@billing/platform';
import { decideEnableProvider, PaymentProvider, paymentProviderEvolver, validateProviderCredentials } from '../domain';
import { CredentialVault } from '../credentials/credential-vault';
import { providerStream } from '../streams';
import { EnableProviderCommand } from './enable-provider.command';

/** Enables (or re-enables with new credentials: rotation) a provider; the credentials are encrypted before any event holds them. */
@CommandHandler(EnableProviderCommand)
export class EnableProviderHandler implements ICommandHandler<EnableProviderCommand, Written<PaymentProvider>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly vault: CredentialVault,
    private readonly environmentClock: EnvironmentClock,
  ) {}

  async execute({ environmentId, name, credentials, context }: EnableProviderCommand): Promise<Written<PaymentProvider>> {
    const validated = validateProviderCredentials(name, credentials, { clockAdvanced: await this.environmentClock.isAdvanced(environmentId) });
    const encrypted = validated.credentials === null ? null : this.vault.encrypt(environmentId, validated.name, validated.credentials);
    const { state, version } = await this.commands.handle(
      providerStream(environmentId, validated.name),
      paymentProviderEvolver,
      (current) => decideEnableProvider({ name: validated.name, credentialsHint: validated.hint, credentials: encrypted }, current, context.meta),
      context,
      { conflicts: { retries: 1 } },
    );
    return { id: validated.name, version, state: state as PaymentProvider };
  }
}
