import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { CustomerBalanceAdjustedData } from '../../domain';

/** POST /customers/{id}/balance-transactions: a manual entry on the customer's credit-balance ledger. Answers the entry. */
export class AdjustCustomerBalanceCommand extends Command<Written<CustomerBalanceAdjustedData>> {
  constructor(
    readonly environmentId: string,
    readonly customerId: string,
    /** As the request gives them: the decider checks them. */
    readonly input: { readonly amount: unknown; readonly currency: unknown; readonly description?: unknown },
    readonly context: CommandContext,
  ) {
    super();
  }
}
