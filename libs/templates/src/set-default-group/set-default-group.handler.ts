import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideSetDefaultTemplateGroup, defaultTemplateGroupEvolver, existingTemplateGroup, TemplateGroup, templateGroupEvolver } from '../domain';
import { defaultTemplateGroupStream, templateGroupStream } from '../streams';
import { SetDefaultTemplateGroupCommand } from './set-default-group.command';

@CommandHandler(SetDefaultTemplateGroupCommand)
export class SetDefaultTemplateGroupHandler implements ICommandHandler<SetDefaultTemplateGroupCommand, Written<TemplateGroup>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, templateGroupId, context }: SetDefaultTemplateGroupCommand): Promise<Written<TemplateGroup>> {
    const loaded = await this.commands.load(templateGroupStream(environmentId, templateGroupId), templateGroupEvolver);
    const group = existingTemplateGroup(loaded.state, templateGroupId);
    await this.commands.handle(
      defaultTemplateGroupStream(environmentId),
      defaultTemplateGroupEvolver,
      (current) => decideSetDefaultTemplateGroup(templateGroupId, current, context.meta),
      context,
      { conflicts: { retries: 1 } },
    );
    return { id: templateGroupId, version: loaded.version, state: group };
  }
}
