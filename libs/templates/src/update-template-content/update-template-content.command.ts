import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { TemplateGroup } from '../domain';

/**
 * PUT /templates/{groupId}/templates/{templateId} `{content}`: saved only when
 * it parses in the sandbox and renders a sample invoice within every limit a
 * booking's render has (a template that would be stopped at every booking is
 * refused here, where its author sees why).
 */
export class UpdateTemplateContentCommand extends Command<Written<TemplateGroup>> {
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
