import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { TemplateGroupInput } from '../domain';
import { TemplateGroupView } from '../views';

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
