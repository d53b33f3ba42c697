import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { TemplateGroup } from '../domain';

/** PUT /templates/{id}/default: the group documents render with when none is named. */
export class SetDefaultTemplateGroupCommand extends Command<Written<TemplateGroup>> {
  constructor(
    readonly environmentId: string,
    readonly templateGroupId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
