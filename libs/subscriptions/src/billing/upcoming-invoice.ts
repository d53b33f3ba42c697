import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { CommandPath } from '@billing/event-store';
import { CustomerRecordQuery, invoiceCustomerOf, PreviewInvoiceQuery } from '@billing/invoicing';
import { ConflictError, NotFoundError } from '@billing/shared-kernel';
import { subscriptionEvolver } from '../domain';
import { PaymentTermsQuery } from '../ports';
import { subscriptionStream } from '../streams';
import { toUpcomingInvoiceView, UpcomingInvoiceView } from '../upcoming-invoice-view';
import { BillingInputs, composeUpcoming, invoiceInputOf } from './invoice-inputs';

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
  ) {}

  async preview(environmentId: string, subscriptionId: string, now: Date): Promise<UpcomingInvoiceView> {
    const { state } = await this.commands.load(subscriptionStream(environmentId, subscriptionId), subscriptionEvolver);
    if (state.status === 'none') throw new NotFoundError('subscription', subscriptionId);
    // A booked period whose late usage cannot be rated now is left out, as the engine leaves it out (and logs it when it bills).
    const upcoming = await composeUpcoming(state, this.inputs.sources(environmentId, state), () => undefined);
    if (upcoming === null) {
      throw new ConflictError('no-upcoming-invoice', `subscription ${subscriptionId} has nothing left to bill: no invoice will be booked for it`);
    }
    const paymentTermsDays = await this.queries.execute(new PaymentTermsQuery(environmentId, this.dataSource.manager));
    const input = invoiceInputOf(upcoming.composed.invoice, paymentTermsDays);
    // Made out to a customer record, the invoice shows the record as booking will freeze it: as it is now.
    const record = state.customerId ? await this.queries.execute(new CustomerRecordQuery(environmentId, state.customerId)) : null;
    const customer = record ? { ...invoiceCustomerOf(record) } : (upcoming.composed.invoice.customer as never);
    const invoice = await this.queries.execute(new PreviewInvoiceQuery(environmentId, { ...input, customer }, now));
    return toUpcomingInvoiceView(upcoming, invoice);
  }
}
