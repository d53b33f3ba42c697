import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandContext, CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideUpdateTemplateGroup, TemplateGroupInput, templateGroupEvolver } from '../domain';
import { templateGroupStream } from '../streams';
import { TemplateGroupView, templateGroupViewOf } from '../views';

/** PUT /templates/{id} `{name, locale?}` (an absent locale is `en`, as on creation: PUT replaces). */
export class UpdateTemplateGroupCommand extends Command<Versioned<TemplateGroupView>> {
  constructor(
    readonly environmentId: string,
    readonly templateGroupId: string,
    readonly input: TemplateGroupInput,
    readonly expectedVersion: number | undefined,
    readonly context: CommandContext,
  ) {
    super();
  }
}

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
