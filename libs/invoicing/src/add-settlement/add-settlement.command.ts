import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { AddSettlement, InvoiceState } from '../domain';

export class AddSettlementCommand extends Command<Written<InvoiceState>> {
  constructor(
    readonly environmentId: string,
    readonly input: AddSettlement,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
