import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { customerEvolver, CustomerBalanceAdjustedData, decideAdjustCustomerBalance } from '../../domain';
import { customerStream } from '../../streams';
import { AdjustCustomerBalanceCommand } from './adjust-customer-balance.command';

/**
 * A manual balance entry, appended to the customer's stream at the version it
 * was decided on: a booking taking credit at the same moment moves the stream
 * and this entry is decided again on a fresh load (so a debit never takes
 * credit that a booking just took). Answers the entry (`id`: its id; the
 * version is the customer's after it).
 */
@CommandHandler(AdjustCustomerBalanceCommand)
export class AdjustCustomerBalanceHandler implements ICommandHandler<AdjustCustomerBalanceCommand, Written<CustomerBalanceAdjustedData>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, customerId, input, context }: AdjustCustomerBalanceCommand): Promise<Written<CustomerBalanceAdjustedData>> {
    const entryId = context.meta.newId();
    const { version, events } = await this.commands.handle(
      customerStream(environmentId, customerId),
      customerEvolver,
      (current) => decideAdjustCustomerBalance({ customerId, entryId, ...input }, current, context.meta),
      context,
      { conflicts: { retries: 3 } },
    );
    const [entry] = events;
    if (entry?.type !== 'CustomerBalanceAdjusted') throw new Error('a balance adjustment decides exactly one CustomerBalanceAdjusted');
    return { id: entryId, version, state: entry.data };
  }
}
