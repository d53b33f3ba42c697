import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { TemplateGroupInput } from '../domain';
import { TemplateGroupView } from '../views';

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
