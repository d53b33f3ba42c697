import { CommandContext } from '@billing/event-store';

/** POST /paymentproviders/enable as it arrives: the handler validates it (the domain's rules, pointers at /name and /credentials). */
export class EnableProviderCommand {
  constructor(
    readonly environmentId: string,
    readonly name: unknown,
    readonly credentials: unknown,
    readonly context: CommandContext,
  ) {}
}
