import { CommandContext } from '@billing/event-store';
import { CreateTaxCode } from '../domain';

export class CreateTaxCodeCommand {
  constructor(
    readonly environmentId: string,
    readonly input: CreateTaxCode,
    readonly context: CommandContext,
  ) {}
}
