import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideCreateTemplateGroup, existingTemplateGroup, TemplateGroup, templateGroupEvolver } from '../domain';
import { BUILT_IN_TEMPLATES } from '../rendering/default-templates';
import { templateGroupStream } from '../streams';
import { CreateTemplateGroupCommand } from './create-template-group.command';

@CommandHandler(CreateTemplateGroupCommand)
export class CreateTemplateGroupHandler implements ICommandHandler<CreateTemplateGroupCommand, Written<TemplateGroup>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context }: CreateTemplateGroupCommand): Promise<Written<TemplateGroup>> {
    const templateGroupId = context.meta.newId();
    const { state, version } = await this.commands.handle(
      templateGroupStream(environmentId, templateGroupId),
      templateGroupEvolver,
      (current) => decideCreateTemplateGroup({ templateGroupId, input, defaults: BUILT_IN_TEMPLATES }, current, context.meta),
      context,
      { newStream: true },
    );
    return { id: templateGroupId, version, state: existingTemplateGroup(state, templateGroupId) };
  }
}
