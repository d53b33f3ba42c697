import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandContext, CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideCreateTemplateGroup, TemplateGroupInput, templateGroupEvolver } from '../domain';
import { BUILT_IN_TEMPLATES } from '../rendering/default-templates';
import { templateGroupStream } from '../streams';
import { TemplateGroupView, templateGroupViewOf } from '../views';

/** POST /templates with the body already validated: a group holding the built-in content of every type. */
export class CreateTemplateGroupCommand extends Command<Versioned<TemplateGroupView>> {
  constructor(
    readonly environmentId: string,
    readonly input: TemplateGroupInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}

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
