import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { TaxCodeState, UpdateTaxCode } from '../domain';

export class UpdateTaxCodeCommand extends Command<Written<TaxCodeState>> {
  constructor(
    readonly environmentId: string,
    readonly input: UpdateTaxCode,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
