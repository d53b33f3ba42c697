import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { TemplateGroupView } from '../views';

/** PUT /templates/{id}/default: the group documents render with when none is named. */
export class SetDefaultTemplateGroupCommand extends Command<Versioned<TemplateGroupView>> {
  constructor(
    readonly environmentId: string,
    readonly templateGroupId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
