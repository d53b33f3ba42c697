import { CommandMetadata, DomainEvent, Evolver } from '@billing/shared-kernel';

/**
 * One stream per invoice that serialises its payments: a payment opens it,
 * its outcome closes it. Creating a payment appends here with the version it
 * loaded, so two concurrent payments on one invoice cannot both see it closed.
 */
export const INVOICE_PAYMENTS_STREAM_TYPE = 'invoice-payments';

export type InvoicePaymentOpened = DomainEvent<'InvoicePaymentOpened', { readonly invoiceId: string; readonly paymentId: string; readonly openedAt: string }>;
export type InvoicePaymentClosed = DomainEvent<'InvoicePaymentClosed', { readonly invoiceId: string; readonly paymentId: string; readonly closedAt: string }>;
export type InvoicePaymentsEvent = InvoicePaymentOpened | InvoicePaymentClosed;

/** The payment of the invoice still waiting for its outcome, if any, and every payment ever made of it (oldest first). */
export interface InvoicePayments {
  readonly pendingPaymentId: string | null;
  readonly paymentIds: readonly string[];
}

export const invoicePaymentsEvolver: Evolver<InvoicePayments, InvoicePaymentsEvent> = {
  initialState: () => ({ pendingPaymentId: null, paymentIds: [] }),
  evolve: (state, event) => {
    if (event.type === 'InvoicePaymentOpened') return { pendingPaymentId: event.data.paymentId, paymentIds: [...state.paymentIds, event.data.paymentId] };
    return state.pendingPaymentId === event.data.paymentId ? { ...state, pendingPaymentId: null } : state;
  },
};

/** Opens the invoice for a payment decided on (decideCreatePayment has refused one while another is pending). */
export function decideOpenInvoicePayment(
  command: { invoiceId: string; paymentId: string },
  _state: InvoicePayments,
  meta: CommandMetadata,
): InvoicePaymentOpened[] {
  return [{ type: 'InvoicePaymentOpened', schemaVersion: 1, data: { ...command, openedAt: meta.now.toISOString() } }];
}

/** Closes it once the payment has its outcome; closing a payment that is not the pending one writes nothing. */
export function decideCloseInvoicePayment(
  command: { invoiceId: string; paymentId: string },
  state: InvoicePayments,
  meta: CommandMetadata,
): InvoicePaymentClosed[] {
  if (state.pendingPaymentId !== command.paymentId) return [];
  return [{ type: 'InvoicePaymentClosed', schemaVersion: 1, data: { ...command, closedAt: meta.now.toISOString() } }];
}
