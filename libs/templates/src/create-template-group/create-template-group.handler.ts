import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideCreateTemplateGroup, templateGroupEvolver } from '../domain';
import { BUILT_IN_TEMPLATES } from '../rendering/default-templates';
import { templateGroupStream } from '../streams';
import { TemplateGroupView, templateGroupViewOf } from '../views';
import { CreateTemplateGroupCommand } from './create-template-group.command';

@CommandHandler(CreateTemplateGroupCommand)
export class CreateTemplateGroupHandler implements ICommandHandler<CreateTemplateGroupCommand, Versioned<TemplateGroupView>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context }: CreateTemplateGroupCommand): Promise<Versioned<TemplateGroupView>> {
    const templateGroupId = context.meta.newId();
    const { state, version } = await this.commands.handle(
      templateGroupStream(environmentId, templateGroupId),
      templateGroupEvolver,
      (current) => decideCreateTemplateGroup({ templateGroupId, input, defaults: BUILT_IN_TEMPLATES }, current, context.meta),
      context,
      { newStream: true },
    );
    return new Versioned(templateGroupViewOf(state)!, version, `/templates/${templateGroupId}`);
  }
}
