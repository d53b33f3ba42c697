import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { CreateTaxCode, TaxCodeState } from '../domain';

export class CreateTaxCodeCommand extends Command<Written<TaxCodeState>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreateTaxCode,
    readonly context: CommandContext,
  ) {
    super();
  }
}
