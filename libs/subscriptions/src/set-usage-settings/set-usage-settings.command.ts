import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { UsageSettings } from '../domain';

/** PUT /usage-settings: the body as it arrived (validated by the decider). */
export class SetUsageSettingsCommand extends Command<Written<UsageSettings>> {
  constructor(
    readonly environmentId: string,
    readonly body: unknown,
    readonly context: CommandContext,
  ) {
    super();
  }
}
