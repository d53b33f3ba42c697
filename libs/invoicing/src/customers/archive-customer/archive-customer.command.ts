import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Customer } from '../../domain';

/** DELETE /customers/{id}: the customer is archived, never erased (its history and invoices keep naming it). */
export class ArchiveCustomerCommand extends Command<Written<Customer>> {
  constructor(
    readonly environmentId: string,
    readonly customerId: string,
    readonly context: CommandContext,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
