import { CommandMetadata, ConflictError, NotFoundError, assertAmountInRange } from '@billing/shared-kernel';
import { settlementStatus, totalDue } from './invoice-maths';
import { Invoice, InvoiceState } from './invoice';
import { CreditedLine, InvoiceEvent, InvoiceSettlementAdded } from './invoice-events';

/**
 * Applying a booked credit note to the invoice it credits. Both sides record
 * it, in one atomic append over the two streams:
 * - the invoice gets a settlement of the credited amount (−the credit note's
 *   total) marked with the credit note's id, so the invoice knows how much its
 *   credit notes credit together (`creditedAmount`) and refuses more than its
 *   total;
 * - the credit note gets the opposite settlement, marked with the invoice's id:
 *   its whole amount went to the invoice, so nothing of it is left to pay out.
 * The infrastructure appends both with the versions it loaded, so two credit
 * notes booked at once cannot both pass the check.
 */

export interface ApplyCreditNote {
  /** the booked credit note */
  readonly creditNoteId: string;
  /** the invoice it credits */
  readonly invoiceId: string;
  /** A credit note issued with a disposition: the refund the payments context is to make of it. */
  readonly refundToMake?: number;
  /** A credit note issued with lines: what it credits of each line. */
  readonly creditedLines?: readonly CreditedLine[];
}

export interface ApplyCreditNoteResult {
  /** append to the credited invoice's stream */
  readonly invoiceEvents: InvoiceEvent[];
  /** append to the credit note's stream */
  readonly creditNoteEvents: InvoiceEvent[];
}

/** What the invoice's credit notes may still credit, in the direction of its total (0 when fully credited). */
export function creditableAmount(invoice: Invoice): number {
  return invoice.totalInclVat - invoice.creditedAmount;
}

/** The application a freshly booked credit note needs; null for anything else (invoices, drafts). */
export function creditNoteApplication(state: InvoiceState): ApplyCreditNote | null {
  if (state.status !== 'booked' || state.type !== 'credit_note' || state.creditedInvoiceId === null) return null;
  return { creditNoteId: state.id, invoiceId: state.creditedInvoiceId };
}

/**
 * Rules, each a 409 since they concern the two documents' state:
 * - the invoice is booked (it always is: only booked invoices are credited);
 * - a credit note reduces the invoice: its total has the opposite sign of the
 *   invoice's (`credit-note-wrong-sign`);
 * - the invoice's credit notes together never exceed its total
 *   (`credit-exceeds-invoice`, naming what is still creditable).
 * A credit note with a total of 0 changes nothing and records nothing.
 */
export function decideApplyCreditNote(
  command: ApplyCreditNote,
  invoiceState: InvoiceState,
  creditNoteState: InvoiceState,
  meta: CommandMetadata,
): ApplyCreditNoteResult {
  if (creditNoteState.status === 'none') throw new NotFoundError('Invoice', command.creditNoteId);
  if (invoiceState.status === 'none') throw new NotFoundError('Invoice', command.invoiceId);
  const creditNote = creditNoteState;
  const invoice = invoiceState;
  if (creditNote.type !== 'credit_note' || creditNote.status !== 'booked' || creditNote.creditedInvoiceId !== invoice.id) {
    throw new ConflictError('invoice-not-booked', `invoice ${creditNote.id} is not a booked credit note of invoice ${invoice.id}`);
  }
  if (invoice.status !== 'booked') throw new ConflictError('invoice-not-booked', `invoice ${invoice.id} is not booked`);
  const credit = -creditNote.totalInclVat;
  if (credit === 0) return { invoiceEvents: [], creditNoteEvents: [] };

  const number = invoice.handle ?? invoice.id;
  const remaining = creditableAmount(invoice);
  if (invoice.totalInclVat !== 0 && Math.sign(credit) !== Math.sign(invoice.totalInclVat)) {
    throw new ConflictError(
      'credit-note-wrong-sign',
      `A credit note must reduce the invoice it credits: this one's total ${creditNote.totalInclVat} would add to ${number}'s total ${invoice.totalInclVat} ` +
        `(amounts in minor units of ${invoice.currency}; ${remaining} is still creditable).`,
    );
  }
  if (Math.abs(invoice.creditedAmount + credit) > Math.abs(invoice.totalInclVat)) {
    throw new ConflictError(
      'credit-exceeds-invoice',
      `The credit notes of ${number} may not together exceed its total ${invoice.totalInclVat}: ${remaining} is still creditable, ` +
        `this credit note credits ${credit} (amounts in minor units of ${invoice.currency}).`,
    );
  }

  const at = meta.now.toISOString();
  const invoiceSettled = Number(assertAmountInRange(BigInt(invoice.settledAmount) + BigInt(credit), '/amount'));
  totalDue(BigInt(invoice.totalInclVat), BigInt(invoiceSettled));
  const creditNoteSettled = Number(assertAmountInRange(BigInt(creditNote.settledAmount) + BigInt(creditNote.totalInclVat), '/amount'));
  totalDue(BigInt(creditNote.totalInclVat), BigInt(creditNoteSettled));

  const onInvoice: InvoiceSettlementAdded = {
    type: 'InvoiceSettlementAdded',
    schemaVersion: 1,
    data: {
      invoiceId: invoice.id,
      date: creditNote.date,
      amount: credit,
      reference: creditNote.handle,
      note: null,
      addedAt: at,
      settlementStatus: settlementStatus(BigInt(invoice.totalInclVat), BigInt(invoiceSettled)),
      creditNoteId: creditNote.id,
      ...(command.refundToMake ? { refundToMake: command.refundToMake } : {}),
      ...(command.creditedLines?.length ? { creditedLines: command.creditedLines } : {}),
    },
  };
  const onCreditNote: InvoiceSettlementAdded = {
    type: 'InvoiceSettlementAdded',
    schemaVersion: 1,
    data: {
      invoiceId: creditNote.id,
      date: creditNote.date,
      amount: creditNote.totalInclVat,
      reference: invoice.handle,
      note: null,
      addedAt: at,
      settlementStatus: settlementStatus(BigInt(creditNote.totalInclVat), BigInt(creditNoteSettled)),
      appliedToInvoiceId: invoice.id,
    },
  };
  return { invoiceEvents: [onInvoice], creditNoteEvents: [onCreditNote] };
}
