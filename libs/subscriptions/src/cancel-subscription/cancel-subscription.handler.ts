import { CommandBus, CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';
import { CommandContext, CommandPath, Written } from '@billing/event-store';
import { BookInvoiceCommand, CreateInvoiceCommand } from '@billing/invoicing';
import { foldEvents } from '@billing/shared-kernel';
import {
  decideBillFinal,
  decideCancelSubscription,
  existingSubscription,
  finalBilling,
  Subscription,
  SubscriptionEvent,
  subscriptionEvolver,
  SubscriptionState,
  billsInvoice,
} from '../domain';
import { BillingInputs, composeDue, invoiceInputOf, useCustomerDiscounts } from '../billing/invoice-inputs';
import { PaymentTermsQuery } from '../ports';
import { subscriptionStream } from '../streams';
import { CancelSubscriptionCommand } from './cancel-subscription.command';

/**
 * Cancels at the end of the period (one stream), or now: the cancellation and the final invoice — the arrears
 * and usage up to today and, with prorate, the credit for the unused advance-billed days — composed with the
 * engine's composition, created and booked through invoicing's commands, in one transaction.
 */
@CommandHandler(CancelSubscriptionCommand)
export class CancelSubscriptionHandler implements ICommandHandler<CancelSubscriptionCommand, Written<Subscription>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly bus: CommandBus,
    private readonly queries: QueryBus,
    private readonly inputs: BillingInputs,
  ) {}

  async execute({ environmentId, subscriptionId, context, expectedVersion, options }: CancelSubscriptionCommand): Promise<Written<Subscription>> {
    const stream = subscriptionStream(environmentId, subscriptionId);
    if (options.at === 'period_end') {
      const { state, version } = await this.commands.handle(
        stream,
        subscriptionEvolver,
        (current) => decideCancelSubscription({ subscriptionId }, current, context.meta),
        context,
        { expectedVersion },
      );
      return { id: subscriptionId, version, state: existingSubscription(state, subscriptionId) };
    }
    // The invoice's create and book join the command's transaction: all of it is written, or none.
    return this.commands.atomically(() =>
      this.commands.run(context, 'reject', async (session) => {
        const { state, version } = await session.load(stream, subscriptionEvolver, expectedVersion);
        const events: SubscriptionEvent[] = decideCancelSubscription({ subscriptionId, at: 'now' }, state, context.meta);
        if (events.length === 0) return { id: subscriptionId, version, state: existingSubscription(state, subscriptionId) };
        const cancelled = foldEvents(subscriptionEvolver, events, state) as Subscription;
        events.push(...(await this.billFinal(environmentId, cancelled, options.prorate, context, session.tx)));
        const written = session.append(stream, events);
        return { id: subscriptionId, version: written, state: existingSubscription(foldEvents(subscriptionEvolver, events, state), subscriptionId) };
      }),
    );
  }

  /** The final invoice, created and booked, and its SubscriptionBilled; nothing when it would have no line. */
  private async billFinal(
    environmentId: string,
    cancelled: Subscription,
    prorate: boolean,
    context: CommandContext,
    manager: EntityManager,
  ): Promise<SubscriptionEvent[]> {
    const { now } = context.meta;
    const final = finalBilling(cancelled, now, prorate);
    if (!billsInvoice(final)) return [];
    // A booked usage period whose late usage cannot be rated now keeps its correction out of the final invoice, as the engine does.
    const composed = await composeDue(cancelled, final, this.inputs.sources(environmentId, cancelled, manager), () => undefined);
    if (composed.kind === 'failed') throw composed.error;
    const { amounts, usage, corrections, usageLines, invoice } = composed;
    // A fresh id: the engine's invoice ids are derived from their billAt, which a cancellation at local midnight could share.
    const invoiceId = context.meta.newId();
    const events = decideBillFinal(
      { subscriptionId: cancelled.id, prorate, invoiceId, amounts, usage, corrections, usageLines },
      cancelled as SubscriptionState,
      context.meta,
    );
    const paymentTermsDays = await this.queries.execute(new PaymentTermsQuery(environmentId, manager));
    await this.bus.execute(new CreateInvoiceCommand(environmentId, invoiceInputOf(invoice, paymentTermsDays, cancelled.customerId), context, invoiceId));
    await useCustomerDiscounts(this.bus, environmentId, cancelled, composed, invoiceId, context);
    await this.bus.execute(new BookInvoiceCommand(environmentId, invoiceId, invoice.date, context, 1));
    return events;
  }
}
