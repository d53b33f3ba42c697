import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { CommandPath } from '@billing/event-store';
import { CustomerRecordQuery, invoiceCustomerOf, PreviewInvoiceQuery } from '@billing/invoicing';
import { randomUUID } from 'node:crypto';
import { ConflictError, foldEvents, NotFoundError } from '@billing/shared-kernel';
import {
  billsProrationsAtOnce,
  decideBillProrations,
  decideChangeItems,
  existingSubscription,
  Subscription,
  subscriptionEvolver,
  SubscriptionState,
} from '../domain';
import { ChangeBilling, composedProrations } from '../change-items/change-billing';
import { ChangeItemsInput } from '../change-items/change-items.command';
import { requestedItems } from '../change-items/change-items.handler';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { PaymentTermsQuery } from '../ports';
import { subscriptionStream } from '../streams';
import { ChangePreviewView, toUpcomingInvoiceView, UpcomingInvoiceView } from '../upcoming-invoice-view';
import { BillingInputs, composeUpcoming, invoiceInputOf, UpcomingComposition } from './invoice-inputs';

/**
 * GET /subscriptions/{id}/upcoming-invoice: the invoice the billing engine
 * would book at the next billAt, computed now and nothing written. It runs
 * the engine's own functions on what the database holds now — the state from
 * the subscription's stream, composeUpcoming over the same BillingSources,
 * the payment terms, and the invoicing context's create-and-book maths
 * (PreviewInvoiceQuery) — so it is the booked invoice as long as nothing
 * changes before billAt (README: Invoice preview).
 */
@Injectable()
export class UpcomingInvoices {
  constructor(
    private readonly commands: CommandPath,
    private readonly queries: QueryBus,
    private readonly inputs: BillingInputs,
    private readonly dataSource: DataSource,
    private readonly readModel: SubscriptionsReadModel,
    private readonly changes: ChangeBilling,
  ) {}

  async preview(environmentId: string, subscriptionId: string, now: Date): Promise<UpcomingInvoiceView> {
    const { state } = await this.commands.load(subscriptionStream(environmentId, subscriptionId), subscriptionEvolver);
    if (state.status === 'none') throw new NotFoundError('subscription', subscriptionId);
    const view = await this.upcomingOf(environmentId, state, now);
    if (view === null) {
      throw new ConflictError('no-upcoming-invoice', `subscription ${subscriptionId} has nothing left to bill: no invoice will be booked for it`);
    }
    return view;
  }

  /**
   * POST /subscriptions/{id}/changes/preview: the change decided as the request would decide it (same
   * validation, same errors), nothing written; with always_invoice effective now, the invoice of its lines
   * booked at once; then the upcoming invoice after it (null: nothing left to bill).
   */
  async previewChange(environmentId: string, subscriptionId: string, input: ChangeItemsInput, now: Date): Promise<ChangePreviewView> {
    const { state } = await this.commands.load(subscriptionStream(environmentId, subscriptionId), subscriptionEvolver);
    const subscription = existingSubscription(state, subscriptionId);
    const items = await requestedItems(this.readModel, environmentId, input.items);
    const sources = this.inputs.sources(environmentId, subscription);
    const prices = await this.changes.prices(
      subscription,
      items.map((item) => item.priceId),
      sources,
    );
    const meta = { now, newId: randomUUID };
    const command = { subscriptionId, changeId: randomUUID(), items, effective: input.effective, prorationBehavior: input.prorationBehavior };
    let changed = foldEvents(subscriptionEvolver, decideChangeItems(command, state, meta, prices), state) as Subscription;
    let immediateInvoice: UpcomingInvoiceView | null = null;
    if (changed.latestChange?.id === command.changeId && input.prorationBehavior === 'always_invoice' && billsProrationsAtOnce(changed)) {
      const composed = composedProrations(changed, now);
      const due = { billAt: now, renewal: null, charges: [], ends: false, prorations: changed.pendingProrations! };
      immediateInvoice = await this.viewOf(environmentId, { subscription: changed, due, composed }, now);
      const billed = decideBillProrations({ subscriptionId, invoiceId: randomUUID() }, changed, meta);
      changed = foldEvents(subscriptionEvolver, billed, changed as SubscriptionState) as Subscription;
    }
    return { immediateInvoice, upcomingInvoice: await this.upcomingOf(environmentId, changed, now) };
  }

  private async upcomingOf(environmentId: string, state: SubscriptionState, now: Date): Promise<UpcomingInvoiceView | null> {
    if (state.status === 'none') return null;
    // A booked period whose late usage cannot be rated now is left out, as the engine leaves it out (and logs it when it bills).
    const upcoming = await composeUpcoming(state, this.inputs.sources(environmentId, state), () => undefined);
    return upcoming === null ? null : this.viewOf(environmentId, upcoming, now);
  }

  /** The composed invoice through the environment's payment terms and invoicing's create-and-book maths (PreviewInvoiceQuery). */
  private async viewOf(environmentId: string, upcoming: UpcomingComposition, now: Date): Promise<UpcomingInvoiceView> {
    const { subscription } = upcoming;
    const paymentTermsDays = await this.queries.execute(new PaymentTermsQuery(environmentId, this.dataSource.manager));
    const input = invoiceInputOf(upcoming.composed.invoice, paymentTermsDays);
    // Made out to a customer record, the invoice shows the record as booking will freeze it: as it is now.
    const record = subscription.customerId ? await this.queries.execute(new CustomerRecordQuery(environmentId, subscription.customerId)) : null;
    const customer = record ? { ...invoiceCustomerOf(record) } : (upcoming.composed.invoice.customer as never);
    const invoice = await this.queries.execute(new PreviewInvoiceQuery(environmentId, { ...input, customer }, now));
    return toUpcomingInvoiceView(upcoming, invoice);
  }
}
