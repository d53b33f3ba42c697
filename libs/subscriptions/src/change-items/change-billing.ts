import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';
import { CommandContext } from '@billing/event-store';
import { BookInvoiceCommand, CreateInvoiceCommand } from '@billing/invoicing';
import { foldEvents } from '@billing/shared-kernel';
import {
  ChangePrices,
  composeInvoice,
  decideApplyScheduledChange,
  decideBillProrations,
  InvoiceComposition,
  ItemsChange,
  priceIdsNamedBy,
  priceIdsOfChange,
  Subscription,
  SubscriptionEvent,
  subscriptionEvolver,
  SubscriptionState,
} from '../domain';
import { BillingSources, CATALOG_PRICING, chargedPrices, invoiceInputOf } from '../billing/invoice-inputs';
import { PaymentTermsQuery } from '../ports';

/**
 * What a change of items needs around its pure decisions: the catalog's prices of the items it touches, and
 * with always_invoice the invoice of the proration lines booked at once (created and booked through
 * invoicing's commands in the caller's transaction, collected like every subscription invoice; a net credit
 * goes on the customer record's balance). Used by the change request, the engine applying a scheduled change
 * and the previews (which write nothing: they compose only).
 */
@Injectable()
export class ChangeBilling {
  constructor(
    private readonly bus: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /** The prices of the subscription's items and of the ones the change names, in its currency. */
  prices(subscription: Subscription, named: readonly (string | null | undefined)[], sources: BillingSources): Promise<ChangePrices> {
    return chargedPrices(subscription, priceIdsOfChange(subscription, named), sources);
  }

  /**
   * The engine's step for a scheduled change at its instant: SubscriptionItemsChanged decided at the change's
   * instant and, with always_invoice, its lines' invoice booked then.
   */
  async applyScheduled(
    environmentId: string,
    subscription: Subscription,
    change: ItemsChange,
    sources: BillingSources,
    context: CommandContext,
    manager: EntityManager,
  ): Promise<SubscriptionEvent[]> {
    const prices = await this.prices(subscription, priceIdsNamedBy(change), sources);
    const events: SubscriptionEvent[] = decideApplyScheduledChange(
      { subscriptionId: subscription.id, changeId: change.id },
      subscription,
      context.meta,
      prices,
    );
    if (events.length === 0 || change.prorationBehavior !== 'always_invoice') return events;
    const changed = foldEvents(subscriptionEvolver, events, subscription as SubscriptionState) as Subscription;
    const at = { ...context, meta: { ...context.meta, now: new Date(change.effectiveAt) } };
    return [...events, ...(await this.invoiceProrations(environmentId, changed, at, manager))];
  }

  /**
   * always_invoice: the lines waiting booked at once on an invoice of their own (dated today), and
   * SubscriptionBilled for them; a net credit goes to the customer record's balance at booking
   * (decideApplyCustomerCredit), settling the invoice. Nothing when billsProrationsAtOnce says no.
   */
  async invoiceProrations(environmentId: string, subscription: Subscription, context: CommandContext, manager: EntityManager): Promise<SubscriptionEvent[]> {
    const invoiceId = context.meta.newId();
    const events = decideBillProrations({ subscriptionId: subscription.id, invoiceId }, subscription, context.meta);
    if (events.length === 0) return [];
    const { invoice } = composedProrations(subscription, context.meta.now);
    const paymentTermsDays = await this.queries.execute(new PaymentTermsQuery(environmentId, manager));
    await this.bus.execute(new CreateInvoiceCommand(environmentId, invoiceInputOf(invoice, paymentTermsDays, subscription.customerId), context, invoiceId));
    // A net credit goes to the customer record's balance in the booking itself, which settles the invoice with it.
    await this.bus.execute(new BookInvoiceCommand(environmentId, invoiceId, invoice.date, context, 1));
    return events;
  }
}

/** The invoice of the lines waiting, at `now`: composeInvoice with no charge, only the proration lines. */
export function composedProrations(subscription: Subscription, now: Date): Extract<InvoiceComposition, { kind: 'composed' }> {
  const composed = composeInvoice(
    { subscription, due: { billAt: now, charges: [], prorations: subscription.pendingProrations ?? [] }, prices: new Map(), usage: new Map(), rerated: [] },
    CATALOG_PRICING,
  );
  if (composed.kind === 'failed') throw composed.error;
  return composed;
}
