import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideUpdateEmailSettings, EmailSettings, emailSettingsEvolver } from '../domain';
import { emailSettingsStream } from '../streams';
import { UpdateEmailSettingsCommand } from './update-email-settings.command';

/** Replaces the environment's e-mail settings; events after the change are mailed (or not) by them. */
@CommandHandler(UpdateEmailSettingsCommand)
export class UpdateEmailSettingsHandler implements ICommandHandler<UpdateEmailSettingsCommand, Written<EmailSettings>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, settings, context }: UpdateEmailSettingsCommand): Promise<Written<EmailSettings>> {
    const { state, version } = await this.commands.handle(
      emailSettingsStream(environmentId),
      emailSettingsEvolver,
      (current) => decideUpdateEmailSettings(settings, current, context.meta),
      context,
      { conflicts: { retries: 1 } },
    );
    return { id: environmentId, version, state };
  }
}
