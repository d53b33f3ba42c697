import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { PaymentTermsQuery } from '@billing/subscriptions';
import { paymentSettingsEvolver } from '../domain';
import { paymentSettingsStream } from '../streams';

/** Answers the subscriptions context's port: the payment terms that date the invoices the billing engine books. */
@QueryHandler(PaymentTermsQuery)
export class PaymentTermsHandler implements IQueryHandler<PaymentTermsQuery, number> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, manager }: PaymentTermsQuery): Promise<number> {
    return (await this.commands.load(paymentSettingsStream(environmentId), paymentSettingsEvolver, manager)).state.paymentTermsDays;
  }
}
