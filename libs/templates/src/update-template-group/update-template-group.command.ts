import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { TemplateGroup, TemplateGroupInput } from '../domain';

/** PUT /templates/{id} `{name, locale?}` (an absent locale is `en`, as on creation: PUT replaces). */
export class UpdateTemplateGroupCommand extends Command<Written<TemplateGroup>> {
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
