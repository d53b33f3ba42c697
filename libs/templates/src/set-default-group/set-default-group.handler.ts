import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideSetDefaultTemplateGroup, defaultTemplateGroupEvolver, existingTemplateGroup, templateGroupEvolver } from '../domain';
import { defaultTemplateGroupStream, templateGroupStream } from '../streams';
import { TemplateGroupView, templateGroupViewOf, withDefault } from '../views';
import { SetDefaultTemplateGroupCommand } from './set-default-group.command';

@CommandHandler(SetDefaultTemplateGroupCommand)
export class SetDefaultTemplateGroupHandler implements ICommandHandler<SetDefaultTemplateGroupCommand, Versioned<TemplateGroupView>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, templateGroupId, context }: SetDefaultTemplateGroupCommand): Promise<Versioned<TemplateGroupView>> {
    const loaded = await this.commands.load(templateGroupStream(environmentId, templateGroupId), templateGroupEvolver);
    existingTemplateGroup(loaded.state, templateGroupId);
    await this.commands.handle(
      defaultTemplateGroupStream(environmentId),
      defaultTemplateGroupEvolver,
      (current) => decideSetDefaultTemplateGroup(templateGroupId, current, context.meta),
      context,
      { conflicts: { retries: 1 } },
    );
    return new Versioned(withDefault(templateGroupViewOf(loaded.state)!, templateGroupId), loaded.version);
  }
}
