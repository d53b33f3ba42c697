import { CommandContext } from '@billing/event-store';

export class DisableProviderCommand {
  constructor(
    readonly environmentId: string,
    readonly name: string,
    readonly context: CommandContext,
  ) {}
}
