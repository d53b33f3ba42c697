import { InvoiceEvent, InvoiceLine, InvoiceStatus, InvoiceType } from '@billing/invoicing';

/**
 * What analytics keeps of an invoice: the figures its ledger entries need and what the receivables list shows,
 * folded from invoicing's published events. Not the invoice's whole state (lines, settlements, coupons): every
 * invoice event writes this row, in every live batch and every rebuild, and the whole state was five times as large.
 * The names are those of invoicing's state, so `analytics_invoices.state` reads the same in SQL.
 */
export interface TrackedInvoice {
  readonly status: InvoiceStatus;
  readonly id: string;
  readonly type: InvoiceType;
  readonly handle: string | null;
  readonly date: string;
  readonly dueDate: string | null;
  readonly currency: string;
  readonly customerId: string | null;
  readonly customer: { readonly name: string | null };
  /** The totals as booked (InvoiceBooked carries them); 0 until it is booked: a draft's figures count nowhere. */
  readonly totalInclVat: number;
  readonly totalVat: number;
  /** The sum of its lines' discounts (coupons' included): of the draft's lines, then of the lines as booked. */
  readonly lineDiscounts: number;
  readonly settledAmount: number;
}

/** Before its InvoiceCreated, like invoicing's own state. */
export type TrackedInvoiceState = { readonly status: 'none' } | TrackedInvoice;

export const NO_INVOICE: TrackedInvoiceState = { status: 'none' };

/** The invoice as analytics keeps it after one of its events; the same object for an event that changes none of it. */
export function evolveTrackedInvoice(state: TrackedInvoiceState, event: InvoiceEvent): TrackedInvoiceState {
  if (event.type === 'InvoiceCreated') {
    const { invoiceId, type, customer, customerId, currency, date, dueDate, lines } = event.data;
    return {
      status: 'draft',
      id: invoiceId,
      type,
      handle: null,
      date,
      dueDate,
      currency,
      customerId: customerId ?? null,
      customer: { name: customer.name },
      totalInclVat: 0,
      totalVat: 0,
      lineDiscounts: discountsOf(lines),
      settledAmount: 0,
    };
  }
  // As invoicing's fold: a stream starts with InvoiceCreated, anything else on an empty state is ignored.
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'InvoiceUpdated': {
      const { date, currency, dueDate, lines, customer } = event.data;
      return { ...state, date, currency, dueDate, lineDiscounts: discountsOf(lines), customer: customer ? { name: customer.name } : state.customer };
    }
    case 'InvoiceBooked': {
      const { handle, date, dueDate, lines, totalVat, totalInclVat, customer } = event.data;
      return {
        ...state,
        status: 'booked',
        handle,
        date,
        dueDate,
        customer: customer ? { name: customer.name } : state.customer,
        totalInclVat,
        totalVat,
        // Events written before repricing carry no lines: the draft's stand.
        lineDiscounts: lines ? discountsOf(lines) : state.lineDiscounts,
      };
    }
    case 'InvoiceSettlementAdded':
      return { ...state, settledAmount: state.settledAmount + event.data.amount };
    case 'InvoiceVoided':
      return { ...state, status: 'void' };
    default:
      // Uncollectible marks, credit-note dispositions, hosted links, duplicates and event types from a newer release
      // move none of these figures.
      return state;
  }
}

function discountsOf(lines: readonly InvoiceLine[]): number {
  return lines.reduce((sum, line) => sum + line.discountAmount, 0);
}
