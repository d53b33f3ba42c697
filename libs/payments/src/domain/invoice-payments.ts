import { CommandMetadata, DomainEvent, Evolver, deciderOf } from '@billing/shared-kernel';
import type { Payment } from './payment';

/**
 * One stream per invoice that serialises its payments: a payment opens it,
 * its outcome closes it. Creating a payment appends here with the version it
 * loaded, so two concurrent payments on one invoice cannot both see it closed.
 * Closing records what the payment took: the invoice's settlement follows it
 * only later (a reactor), and until then that amount is not due any more.
 */
export const INVOICE_PAYMENTS_STREAM_TYPE = 'invoice-payments';

export type InvoicePaymentOpened = DomainEvent<'InvoicePaymentOpened', { readonly invoiceId: string; readonly paymentId: string; readonly openedAt: string }>;
export type InvoicePaymentClosed = DomainEvent<
  'InvoicePaymentClosed',
  {
    readonly invoiceId: string;
    readonly paymentId: string;
    /** Minor units the payment took (its amount when it succeeded, else 0); absent on events written before it existed: 0. */
    readonly taken?: number;
    readonly closedAt: string;
  }
>;
export type InvoicePaymentsEvent = InvoicePaymentOpened | InvoicePaymentClosed;

/** A payment of the invoice that took money, and how much. */
export interface TakenPayment {
  readonly paymentId: string;
  readonly amount: number;
}

/** The payment of the invoice still waiting for its outcome, if any, every payment ever made of it (oldest first), and those that took money. */
export interface InvoicePayments {
  readonly pendingPaymentId: string | null;
  readonly paymentIds: readonly string[];
  readonly taken: readonly TakenPayment[];
}

export const invoicePaymentsEvolver: Evolver<InvoicePayments, InvoicePaymentsEvent> = {
  initialState: () => ({ pendingPaymentId: null, paymentIds: [], taken: [] }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'InvoicePaymentOpened':
        return { ...state, pendingPaymentId: event.data.paymentId, paymentIds: [...state.paymentIds, event.data.paymentId] };
      case 'InvoicePaymentClosed': {
        if (state.pendingPaymentId !== event.data.paymentId) return state;
        const taken = event.data.taken ?? 0;
        return { ...state, pendingPaymentId: null, taken: taken > 0 ? [...state.taken, { paymentId: event.data.paymentId, amount: taken }] : state.taken };
      }
      default: {
        // A type this fold does not know (a later one read by an older process) leaves the state as it was.
        const _exhaustive: never = event;
        return state;
      }
    }
  },
};

/**
 * What the invoice's payments took that its settlements do not show yet
 * (a settlement's reference is its payment's id): the invoice's total due
 * overstates what is left by this much until the settlement reactor catches
 * up, and a payment decided on the total due alone would take it twice.
 */
export function takenNotSettled(payments: InvoicePayments, settlementReferences: readonly (string | null)[]): number {
  const settled = new Set(settlementReferences);
  return payments.taken.reduce((sum, { paymentId, amount }) => (settled.has(paymentId) ? sum : sum + amount), 0);
}

/** Opens the invoice for a payment decided on (decideCreatePayment has refused one while another is pending). */
export function decideOpenInvoicePayment(
  command: { invoiceId: string; paymentId: string },
  _state: InvoicePayments,
  meta: CommandMetadata,
): InvoicePaymentOpened[] {
  return [{ type: 'InvoicePaymentOpened', schemaVersion: 1, data: { ...command, openedAt: meta.now.toISOString() } }];
}

/** Closes it once the payment has its outcome, with what it took; closing a payment that is not the pending one writes nothing. */
export function decideCloseInvoicePayment(
  command: { invoiceId: string; paymentId: string; taken: number },
  state: InvoicePayments,
  meta: CommandMetadata,
): InvoicePaymentClosed[] {
  if (state.pendingPaymentId !== command.paymentId) return [];
  return [{ type: 'InvoicePaymentClosed', schemaVersion: 1, data: { ...command, closedAt: meta.now.toISOString() } }];
}

/** What the invoice says of the money its payments brought, read from its stream in the deciding transaction. */
export interface InvoiceRefundFacts {
  /** Net of the payments' settlements on it: what they paid, less what was refunded of them. */
  readonly paidThroughPayments: number;
  /** What its credit notes are still to refund through its payments. */
  readonly creditNoteRefundsOutstanding: number;
  /** Its settlements' references (a payment's id, a refund's id, …). */
  readonly settlementReferences: readonly (string | null)[];
}

/**
 * Refunds of the invoice's payments made directly (not for a credit note),
 * reserved or made, whose settlement the invoice does not show yet: money
 * leaving that the invoice cannot see. A credit note's refunds are not
 * counted: the invoice holds them as outstanding from the credit note on.
 */
export function directRefundsNotSettled(payments: readonly Payment[], settlementReferences: readonly (string | null)[]): number {
  const settled = new Set(settlementReferences);
  return payments
    .flatMap((payment) => payment.refunds)
    .filter((refund) => refund.creditNoteId === undefined && refund.status !== 'failed' && !settled.has(refund.id))
    .reduce((sum, refund) => sum + refund.amount, 0);
}

/**
 * What a direct refund may take of the invoice's payments together: what they
 * paid (settled, or taken and not settled yet), less what its credit notes
 * are still to refund and the direct refunds not settled yet. Decided under
 * the invoice's payment lock, which a credit note's issue takes too, so the
 * two never promise the same money twice.
 */
export function refundableOfInvoice(invoice: InvoiceRefundFacts, invoicePayments: InvoicePayments, payments: readonly Payment[]): number {
  const references = invoice.settlementReferences;
  return (
    invoice.paidThroughPayments +
    takenNotSettled(invoicePayments, references) -
    invoice.creditNoteRefundsOutstanding -
    directRefundsNotSettled(payments, references)
  );
}

/** The invoice payments aggregate as one value: what it folds (invoicePaymentsEvolver) and what each of its commands decides. */
export const invoicePaymentsDecider = deciderOf(invoicePaymentsEvolver, {
  OpenInvoicePayment: decideOpenInvoicePayment,
  CloseInvoicePayment: decideCloseInvoicePayment,
});
