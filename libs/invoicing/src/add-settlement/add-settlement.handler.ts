import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideAddSettlement, invoiceEvolver, InvoiceState } from '../domain';
import { invoiceStream } from '../streams';
import { AddSettlementCommand } from './add-settlement.command';

@CommandHandler(AddSettlementCommand)
export class AddSettlementHandler implements ICommandHandler<AddSettlementCommand, Written<InvoiceState>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context, expectedVersion }: AddSettlementCommand): Promise<Written<InvoiceState>> {
    const { version, state } = await this.commands.handle(
      invoiceStream(environmentId, input.invoiceId),
      invoiceEvolver,
      (state) => decideAddSettlement(input, state, context.meta),
      context,
      { expectedVersion },
    );
    return { id: input.invoiceId, version, state };
  }
}
