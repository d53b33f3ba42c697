import { InvoiceEvent } from '@billing/invoicing';
import { PaymentEvent, PaymentState } from '@billing/payments';
import { localDateOf, SubscriptionEvent, SubscriptionState } from '@billing/subscriptions';
import { TrackedInvoice, TrackedInvoiceState } from './tracked-invoice';

/**
 * What one event does to the money figures, in minor units of `currency`, counted on `day` (a UTC date):
 * - `invoiced`, `tax`, `discounts`: a booked invoice's totalInclVat, totalVat and the sum of its lines' discounts,
 *   on its invoice date; a credit note the same with its (negative) totals, and also in `creditNotes`; a void takes
 *   the invoice back out, on its invoice date;
 * - `collected`: a succeeded payment's amount on the day it succeeded, less a succeeded refund on the day it was refunded;
 * - `receivable`: the change of an invoice's amount still due (booked: its total; any settlement: less its amount;
 *   void: less what was still due). Credit notes are not receivables.
 * - `usage`: the usage (event_based) charges a subscription billed, as rated (before discounts and tax), on its
 *   invoice's date (the billing instant's date in the subscription's time zone): those of an invoice booked at once
 *   when it is billed, with the late-usage corrections it carries; those of an invoice held for the usage grace
 *   period when it is booked, as re-rated then.
 */
export interface LedgerEntry {
  readonly invoiceId: string | null;
  readonly currency: string;
  readonly day: string;
  readonly invoiced: number;
  readonly tax: number;
  readonly discounts: number;
  readonly creditNotes: number;
  readonly collected: number;
  readonly receivable: number;
  readonly usage: number;
}

const ZERO = { invoiced: 0, tax: 0, discounts: 0, creditNotes: 0, collected: 0, receivable: 0, usage: 0 };

/** The ledger entry of an invoice event, from the invoice's state before and after it; null when it moves no figure. */
export function invoiceEntry(event: InvoiceEvent, before: TrackedInvoiceState, after: TrackedInvoiceState): LedgerEntry | null {
  if (after.status === 'none') return null;
  // Built only for the events that move a figure: most invoice events (drafts created and edited) move none.
  const base = () => ({ ...ZERO, invoiceId: after.id, currency: after.currency.toUpperCase(), day: after.date });
  const receivable = after.type === 'invoice';
  switch (event.type) {
    case 'InvoiceBooked':
      return { ...base(), ...booked(after, 1), receivable: receivable ? after.totalInclVat - after.settledAmount : 0 };
    case 'InvoiceVoided': {
      if (before.status !== 'booked') return null;
      return { ...base(), ...booked(before, -1), receivable: receivable ? -(before.totalInclVat - before.settledAmount) : 0 };
    }
    case 'InvoiceSettlementAdded':
      // A settlement of a draft moves nothing due yet: booking counts what is due then.
      if (!receivable || after.status !== 'booked') return null;
      return { ...base(), receivable: -event.data.amount };
    default:
      return null;
  }
}

function booked(invoice: TrackedInvoice, sign: 1 | -1) {
  const discounts = invoice.lineDiscounts;
  const creditNote = invoice.type === 'credit_note';
  return {
    invoiced: sign * invoice.totalInclVat,
    tax: sign * invoice.totalVat,
    discounts: sign * (creditNote ? -Math.abs(discounts) : discounts),
    creditNotes: creditNote ? sign * invoice.totalInclVat : 0,
  };
}

/** The ledger entry of a payment event (its state after it carries the currency); null when it moves no figure. */
export function paymentEntry(event: PaymentEvent, after: PaymentState): LedgerEntry | null {
  if (after.status === 'none') return null;
  const base = { ...ZERO, invoiceId: null, currency: after.currency.toUpperCase() };
  switch (event.type) {
    case 'PaymentSucceeded':
      return { ...base, day: event.data.succeededAt.slice(0, 10), collected: event.data.amount };
    case 'PaymentRefunded':
      return { ...base, day: event.data.refundedAt.slice(0, 10), collected: -event.data.amount };
    default:
      return null;
  }
}

/** The ledger entry of a subscription event that billed usage (its state after it carries currency and time zone); null otherwise. */
export function usageEntry(event: SubscriptionEvent, after: SubscriptionState): LedgerEntry | null {
  if (after.status === 'none') return null;
  let usage: number;
  if (event.type === 'SubscriptionBilled') {
    const { usage: charges = [], corrections = [], bookAt } = event.data;
    // An invoice held for the grace period counts its usage when it is booked (re-rated): only its corrections now.
    usage = (bookAt == null ? sum(charges.map((charge) => charge.amount)) : 0) + sum(corrections.map((correction) => correction.amountDelta));
  } else if (event.type === 'SubscriptionInvoiceBooked') {
    usage = sum(event.data.usage.map((charge) => charge.amount));
  } else return null;
  if (usage === 0) return null;
  const day = localDateOf(new Date(event.data.billAt), after.timeZone);
  return { ...ZERO, invoiceId: event.data.invoiceId, currency: after.currency.toUpperCase(), day, usage };
}

function sum(amounts: readonly number[]): number {
  return amounts.reduce((total, amount) => total + amount, 0);
}
