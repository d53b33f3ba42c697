import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { UsageSettings } from '../domain';

/** PUT /usage-settings: the body as it arrived (validated by the decider). */
export class SetUsageSettingsCommand extends Command<Versioned<UsageSettings>> {
  constructor(
    readonly environmentId: string,
    readonly body: unknown,
    readonly context: CommandContext,
  ) {
    super();
  }
}
