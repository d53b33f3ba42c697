import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandContext, CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideUpdateTemplateContent, templateGroupEvolver } from '../domain';
import { checkTemplateSyntax } from '../rendering/liquid-sandbox';
import { templateGroupStream } from '../streams';
import { TemplateGroupView, templateGroupViewOf } from '../views';

/** PUT /templates/{groupId}/templates/{templateId} `{content}`: saved only when it parses in the sandbox. */
export class UpdateTemplateContentCommand extends Command<Versioned<TemplateGroupView>> {
  constructor(
    readonly environmentId: string,
    readonly templateGroupId: string,
    readonly templateId: string,
    readonly content: unknown,
    readonly expectedVersion: number | undefined,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(UpdateTemplateContentCommand)
export class UpdateTemplateContentHandler implements ICommandHandler<UpdateTemplateContentCommand, Versioned<TemplateGroupView>> {
  constructor(private readonly commands: CommandPath) {}

  async execute(command: UpdateTemplateContentCommand): Promise<Versioned<TemplateGroupView>> {
    const { environmentId, templateGroupId, templateId, content, expectedVersion, context } = command;
    const { state, version } = await this.commands.handle(
      templateGroupStream(environmentId, templateGroupId),
      templateGroupEvolver,
      (current) => decideUpdateTemplateContent({ templateGroupId, templateId, content, syntax: checkTemplateSyntax }, current, context.meta),
      context,
      { expectedVersion, retryOnConflict: true },
    );
    return new Versioned(templateGroupViewOf(state)!, version);
  }
}
