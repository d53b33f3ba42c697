import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideUpdateTemplateGroup, existingTemplateGroup, TemplateGroup, templateGroupEvolver } from '../domain';
import { templateGroupStream } from '../streams';
import { UpdateTemplateGroupCommand } from './update-template-group.command';

@CommandHandler(UpdateTemplateGroupCommand)
export class UpdateTemplateGroupHandler implements ICommandHandler<UpdateTemplateGroupCommand, Written<TemplateGroup>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, templateGroupId, input, expectedVersion, context }: UpdateTemplateGroupCommand): Promise<Written<TemplateGroup>> {
    const { state, version } = await this.commands.handle(
      templateGroupStream(environmentId, templateGroupId),
      templateGroupEvolver,
      (current) => decideUpdateTemplateGroup({ templateGroupId, input }, current, context.meta),
      context,
      { expectedVersion, conflicts: { retries: 1 } },
    );
    return { id: templateGroupId, version, state: existingTemplateGroup(state, templateGroupId) };
  }
}
