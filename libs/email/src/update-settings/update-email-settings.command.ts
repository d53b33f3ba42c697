import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { EmailSettings } from '../domain';

export class UpdateEmailSettingsCommand extends Command<Written<EmailSettings>> {
  constructor(
    readonly environmentId: string,
    /** The PUT body, validated by the decider. */
    readonly settings: Readonly<Record<string, unknown>>,
    readonly context: CommandContext,
  ) {
    super();
  }
}
