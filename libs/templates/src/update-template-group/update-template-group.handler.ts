import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideUpdateTemplateGroup, templateGroupEvolver } from '../domain';
import { templateGroupStream } from '../streams';
import { TemplateGroupView, templateGroupViewOf } from '../views';
import { UpdateTemplateGroupCommand } from './update-template-group.command';

@CommandHandler(UpdateTemplateGroupCommand)
export class UpdateTemplateGroupHandler implements ICommandHandler<UpdateTemplateGroupCommand, Versioned<TemplateGroupView>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, templateGroupId, input, expectedVersion, context }: UpdateTemplateGroupCommand): Promise<Versioned<TemplateGroupView>> {
    const { state, version } = await this.commands.handle(
      templateGroupStream(environmentId, templateGroupId),
      templateGroupEvolver,
      (current) => decideUpdateTemplateGroup({ templateGroupId, input }, current, context.meta),
      context,
      { expectedVersion, conflicts: { retries: 1 } },
    );
    return new Versioned(templateGroupViewOf(state)!, version);
  }
}
