import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { TemplateGroup, TemplateGroupInput } from '../domain';

/** POST /templates with the body already validated: a group holding the built-in content of every type. */
export class CreateTemplateGroupCommand extends Command<Written<TemplateGroup>> {
  constructor(
    readonly environmentId: string,
    readonly input: TemplateGroupInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
