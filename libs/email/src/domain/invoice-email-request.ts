import { CommandMetadata, ConflictError, DomainEvent, Evolver, isEmailAddress, ValidationError, deciderOf } from '@billing/shared-kernel';

/** Requests to send a booked invoice's e-mail again: one stream per invoice (uuid v5 of environment and invoice). */
export const INVOICE_EMAIL_REQUEST_STREAM_TYPE = 'invoice-email-request';

export type InvoiceEmailRequested = DomainEvent<
  'InvoiceEmailRequested',
  { readonly invoiceId: string; /** null: the customer record's address. */ readonly to: string | null; readonly requestedAt: string }
>;

export interface InvoiceEmailRequests {
  readonly count: number;
}

export const invoiceEmailRequestEvolver: Evolver<InvoiceEmailRequests, InvoiceEmailRequested> = {
  initialState: () => ({ count: 0 }),
  // Only requests count: an event type from a newer release leaves the count as it was.
  evolve: (state, event) => (event.type === 'InvoiceEmailRequested' ? { count: state.count + 1 } : state),
};

/**
 * POST /invoices/{id}/send: every request is a new event (its id makes the new delivery's id, so each request sends
 * once). The invoice must be booked (the caller checks it against invoicing's stream: `booked`).
 */
export function decideRequestInvoiceEmail(
  command: { readonly invoiceId: string; readonly to: unknown; readonly booked: boolean },
  _state: InvoiceEmailRequests,
  meta: CommandMetadata,
): InvoiceEmailRequested[] {
  const to = command.to ?? null;
  if (to !== null && !isEmailAddress(to)) throw ValidationError.at('/to', 'must be an e-mail address such as billing@example.com');
  if (!command.booked) {
    // Only a booked invoice has a recorded PDF to send.
    throw new ConflictError('invoice-not-booked', `Invoice ${command.invoiceId} is a draft: only a booked invoice (with its recorded PDF) is e-mailed.`);
  }
  return [{ type: 'InvoiceEmailRequested', schemaVersion: 1, data: { invoiceId: command.invoiceId, to, requestedAt: meta.now.toISOString() } }];
}

/** The invoice e-mail requests aggregate as one value: what it folds (invoiceEmailRequestEvolver) and what each of its commands decides. */
export const invoiceEmailRequestDecider = deciderOf(invoiceEmailRequestEvolver, { RequestInvoiceEmail: decideRequestInvoiceEmail });
