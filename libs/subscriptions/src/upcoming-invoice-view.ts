import { Invoice, InvoiceLineView, InvoiceView, toInvoiceView } from '@billing/invoicing';
import { UpcomingComposition } from './billing/invoice-inputs';

/** A usage item's period so far on the upcoming invoice: the events received up to now, rated as the engine rates them. */
export interface UpcomingUsageView {
  readonly itemId: string;
  readonly metricCode: string;
  readonly periodStart: string;
  readonly periodEnd: string;
  readonly quantity: number;
  readonly amount: number;
}

/**
 * The invoice the billing engine would book at billAt, computed now: the
 * invoice's own fields less what only a booking gives (id, number, status,
 * timestamps, settlements), its lines without their ids.
 */
export interface UpcomingInvoiceView extends Pick<
  InvoiceView,
  'date' | 'dueDate' | 'currency' | 'memo' | 'customer' | 'totalExclVat' | 'totalVat' | 'totalInclVat'
> {
  readonly subscriptionId: string;
  readonly billAt: string;
  readonly items: Omit<InvoiceLineView, 'id'>[];
  readonly usage: UpcomingUsageView[];
}

/** POST /subscriptions/{id}/changes/preview: what a change would bill, nothing written. */
export interface ChangePreviewView {
  /** always_invoice effective now: the invoice of the proration lines booked at once; otherwise null. */
  readonly immediateInvoice: UpcomingInvoiceView | null;
  /** The next invoice the engine books after the change; null: nothing left to bill. */
  readonly upcomingInvoice: UpcomingInvoiceView | null;
}

export function toUpcomingInvoiceView(
  { subscription, due, composed }: Pick<UpcomingComposition, 'subscription' | 'composed'> & { due: Pick<UpcomingComposition['due'], 'billAt'> },
  invoice: Invoice,
): UpcomingInvoiceView {
  const view = toInvoiceView(invoice);
  return {
    subscriptionId: subscription.id,
    billAt: due.billAt.toISOString(),
    date: view.date,
    dueDate: view.dueDate,
    currency: view.currency,
    memo: view.memo,
    customer: view.customer,
    items: view.items.map(({ id: _id, ...line }) => line),
    usage: composed.usage.map(({ itemId, period, quantity, amount }) => {
      const schedule = subscription.items.find((item) => item.id === itemId)!.schedule;
      return {
        itemId,
        metricCode: schedule.purchase === 'recurring' ? schedule.metricCode! : '',
        periodStart: period.start,
        periodEnd: period.end,
        quantity: Number(quantity),
        amount,
      };
    }),
    totalExclVat: view.totalExclVat,
    totalVat: view.totalVat,
    totalInclVat: view.totalInclVat,
  };
}
