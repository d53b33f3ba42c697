import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideSetUsageSettings, DEFAULT_USAGE_SETTINGS, UsageSettings, usageSettingsEvolver } from '../domain';
import { usageSettingsStream } from '../streams';
import { SetUsageSettingsCommand } from './set-usage-settings.command';

/** One settings stream per environment; setting the value it has records nothing. */
@CommandHandler(SetUsageSettingsCommand)
export class SetUsageSettingsHandler implements ICommandHandler<SetUsageSettingsCommand, Written<UsageSettings>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, body, context }: SetUsageSettingsCommand): Promise<Written<UsageSettings>> {
    const { state, version } = await this.commands.handle(
      usageSettingsStream(environmentId),
      usageSettingsEvolver,
      (current) => decideSetUsageSettings(body, current, context.meta),
      context,
    );
    return { id: environmentId, version, state: state.status === 'none' ? DEFAULT_USAGE_SETTINGS : state };
  }
}
