import { Evolver, QUANTITY_SCALE, parseScaledDecimal, scaledToNumber } from '@billing/shared-kernel';
import {
  CreditNoteDisposition,
  CreditedLine,
  InvoiceCreated,
  InvoiceCustomer,
  InvoiceDiscount,
  InvoiceEvent,
  InvoiceLine,
  InvoiceSettlement,
  InvoiceSettlementAdded,
  InvoiceType,
} from './invoice-events';
import { totalsOf } from './invoice-totals';

/**
 * The Invoice aggregate, decider style: pure `decide*` functions return events
 * or throw typed errors; `evolve` folds events into state. Time and ids come
 * from CommandMetadata, the tax-code register a command needs comes with the
 * command (`taxes`): a billing engine calls these exactly as the API does.
 *
 * Tax rates: a draft invoice is priced at the current rate of its lines' tax
 * codes. Its events record the rate current when they were written; a later
 * change of a code's rate reprices the draft where it is shown
 * (`withCurrentTax`, applied by the read model) and when it is booked
 * (`decideBookInvoice` takes the current register), and InvoiceBooked records
 * the lines as booked: a booked invoice keeps the rate it was booked with.
 * Credit notes are not repriced: they credit at the rates of the invoice they
 * credit, which their lines copy.
 */

/**
 * The aggregate's files, by concern: its state and evolve (here), its totals
 * (invoice-totals), the tax at current rates (invoice-current-tax), the commands (invoice-commands), the deciders
 * (invoice-decisions) with the line rules they share (invoice-lines), and
 * credit notes applied to invoices (credit-notes).
 */

/**
 * Lines per invoice. Generous for any bill a person reads (a detailed usage
 * invoice runs to a few hundred lines) while keeping an invoice, its events
 * and its webhook notifications a few hundred kilobytes at most.
 */
export const MAX_INVOICE_LINES = 500;

/** `void`: a booked invoice that was never paid and is cancelled; it keeps its number (the sequence stays gapless). */
export type InvoiceStatus = 'draft' | 'booked' | 'void';

export interface Invoice {
  readonly status: InvoiceStatus;
  readonly id: string;
  readonly type: InvoiceType;
  readonly handle: string | null;
  readonly memo: string | null;
  readonly date: string;
  readonly dueDate: string | null;
  /** uppercase ISO 4217 */
  readonly currency: string;
  readonly customer: InvoiceCustomer;
  /**
   * The customer record it is made out to (its `customer` is that record's
   * snapshot); null: a one-off customer given inline. States stored before
   * customers existed lack it: compare with `!= null`.
   */
  readonly customerId: string | null;
  readonly lines: readonly InvoiceLine[];
  /** Coupons redeemed on it while a draft, applied to its lines in this order; absent on states stored before them: none. */
  readonly discounts?: readonly InvoiceDiscount[];
  /**
   * paymentId: the payment of a settlement the payments context recorded (its charge or a refund of it), else null;
   * balanceEntryId: the customer's balance entry of a settlement from the credit balance (absent on states stored before it: null).
   */
  readonly settlements: readonly (InvoiceSettlement & { readonly paymentId: string | null; readonly balanceEntryId?: string | null })[];
  readonly totalExclVat: number;
  readonly totalVat: number;
  readonly totalInclVat: number;
  readonly settledAmount: number;
  /**
   * The part of settledAmount that booked credit notes applied (in the
   * direction of the total): what the invoice's credit notes credit together,
   * never beyond totalInclVat.
   */
  readonly creditedAmount: number;
  /**
   * Marked uncollectible (by hand, or by dunning after its last failed try):
   * no longer collected, still payable. A settlement that settles it clears
   * the mark. Absent on states stored before the mark existed: false.
   */
  readonly uncollectible?: boolean;
  /**
   * The part of settledAmount taken from the customer's credit balance (applied
   * at booking, back to 0 when a void returns it). Absent on states stored
   * before balances existed: 0.
   */
  readonly creditApplied?: number;
  /** Net of the settlements the payments context recorded: what its payments paid, less what was refunded of them. */
  readonly paidThroughPayments: number;
  /** What booked credit notes are to refund through the payments context and it has not refunded yet. */
  readonly creditNoteRefundsOutstanding: number;
  /** Per line of the invoice, what its credit notes with lines credit together (absent: nothing). */
  readonly lineCredits: Readonly<Record<string, Omit<CreditedLine, 'lineId'>>>;
  /** On a credit note issued with a disposition: where its money goes; null otherwise. */
  readonly creditNote: CreditNoteDisposition | null;
  /** The version the hosted page link is sealed over (InvoiceHostedLinkRotated); absent on states stored before links: 0. */
  readonly hostedLinkVersion?: number;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly creditedInvoiceId: string | null;
  readonly duplicatedFromInvoiceId: string | null;
}
/** Before its InvoiceCreated an invoice stream holds nothing: `none`, like every aggregate of the service. */
export type InvoiceState = { readonly status: 'none' } | Invoice;

export function initialInvoiceState(): InvoiceState {
  return { status: 'none' };
}

export function evolveInvoice(state: InvoiceState, event: InvoiceEvent): InvoiceState {
  if (event.type === 'InvoiceCreated') return createdInvoice(event);
  // Events of a stream always start with InvoiceCreated; anything else on an empty state is ignored.
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'InvoiceUpdated': {
      const { date, currency, dueDate, lines, updatedAt, customer, discounts } = event.data;
      return {
        ...state,
        date,
        currency,
        dueDate,
        lines,
        ...totalsOf(lines),
        updatedAt,
        customer: customer ?? state.customer,
        ...(discounts ? { discounts } : {}),
      };
    }
    case 'InvoiceBooked': {
      const { handle, date, dueDate, lines, totalExclVat, totalVat, totalInclVat, bookedAt, customer } = event.data;
      return {
        ...state,
        status: 'booked',
        handle,
        date,
        dueDate,
        customer: customer ?? state.customer,
        lines: lines ?? state.lines,
        totalExclVat,
        totalVat,
        totalInclVat,
        updatedAt: bookedAt,
      };
    }
    case 'InvoiceSettlementAdded':
      return settlementAdded(state, event);
    case 'InvoiceVoided':
      return { ...state, status: 'void', uncollectible: false, updatedAt: event.data.voidedAt };
    case 'InvoiceMarkedUncollectible':
      return { ...state, uncollectible: true, updatedAt: event.data.markedAt };
    case 'CreditNoteIssued': {
      const { invoiceId, reason, dueReducedAmount, refundAmount, creditAmount, outOfBandAmount, issuedAt } = event.data;
      return { ...state, creditNote: { invoiceId, reason, dueReducedAmount, refundAmount, creditAmount, outOfBandAmount }, updatedAt: issuedAt };
    }
    case 'InvoiceHostedLinkRotated':
      return { ...state, hostedLinkVersion: event.data.linkVersion, updatedAt: event.data.rotatedAt };
    case 'InvoiceDuplicated':
      return state;
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

function createdInvoice(event: InvoiceCreated): Invoice {
  const { invoiceId, type, customer, customerId, currency, date, dueDate, memo, lines, creditedInvoiceId, duplicatedFromInvoiceId, createdAt, discounts } =
    event.data;
  return {
    status: 'draft',
    id: invoiceId,
    type,
    handle: null,
    memo,
    date,
    dueDate,
    currency,
    customer,
    customerId: customerId ?? null,
    lines,
    ...(discounts ? { discounts } : {}),
    settlements: [],
    ...totalsOf(lines),
    settledAmount: 0,
    creditedAmount: 0,
    creditApplied: 0,
    uncollectible: false,
    paidThroughPayments: 0,
    creditNoteRefundsOutstanding: 0,
    lineCredits: {},
    creditNote: null,
    createdAt,
    updatedAt: null,
    creditedInvoiceId,
    duplicatedFromInvoiceId,
  };
}

function settlementAdded(state: Invoice, event: InvoiceSettlementAdded): Invoice {
  const { date, amount, reference, note, addedAt, creditNoteId, paymentId, refundedCreditNoteId, refundToMake, creditedLines, balanceEntryId } = event.data;
  return {
    ...state,
    settlements: [...state.settlements, { date, amount, reference, note, paymentId: paymentId ?? null, ...(balanceEntryId ? { balanceEntryId } : {}) }],
    settledAmount: state.settledAmount + amount,
    creditedAmount: creditNoteId == null ? state.creditedAmount : state.creditedAmount + amount,
    creditApplied: (state.creditApplied ?? 0) + (balanceEntryId == null ? 0 : amount),
    // Paid after all: back to an ordinary settled invoice.
    uncollectible: state.uncollectible === true && event.data.settlementStatus !== 'settled' && event.data.settlementStatus !== 'over_settled',
    paidThroughPayments: paymentId == null ? state.paidThroughPayments : state.paidThroughPayments + amount,
    // A refund made for a credit note has a negative amount: it pays off what that credit note was to refund.
    creditNoteRefundsOutstanding: state.creditNoteRefundsOutstanding + (refundToMake ?? 0) + (refundedCreditNoteId == null ? 0 : amount),
    lineCredits: creditedLines ? withLineCredits(state.lineCredits, creditedLines) : state.lineCredits,
    updatedAt: addedAt,
  };
}

function withLineCredits(current: Invoice['lineCredits'], credited: readonly CreditedLine[]): Invoice['lineCredits'] {
  const next = { ...current };
  for (const { lineId, quantity, amount, taxAmount } of credited) {
    const before = next[lineId] ?? { quantity: 0, amount: 0, taxAmount: 0 };
    // Quantities have 4 decimals: added as scaled integers so 0.1 + 0.2 stays 0.3.
    const scaled = parseScaledDecimal(before.quantity, QUANTITY_SCALE, '/quantity') + parseScaledDecimal(quantity, QUANTITY_SCALE, '/quantity');
    next[lineId] = { quantity: scaledToNumber(scaled, QUANTITY_SCALE), amount: before.amount + amount, taxAmount: before.taxAmount + taxAmount };
  }
  return next;
}

export const invoiceEvolver: Evolver<InvoiceState, InvoiceEvent> = {
  initialState: initialInvoiceState,
  evolve: evolveInvoice,
};
