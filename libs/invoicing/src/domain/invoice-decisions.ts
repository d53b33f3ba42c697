import {
  CommandMetadata,
  ConflictError,
  NotFoundError,
  ValidationError,
  addDays,
  assertAmountInRange,
  daysBetween,
  isSupportedCurrency,
  validDate,
} from '@billing/shared-kernel';
import { today } from './calendar';
import { Address, InvoiceCreated, InvoiceCustomer, InvoiceDuplicated, InvoiceEvent } from './invoice-events';
import { negateLine, parseAmount, settlementStatus, totalDue } from './invoice-maths';
import { Invoice, InvoiceState } from './invoice';
import { AddSettlement, BookInvoice, CreateInvoice, CustomerInput, DuplicateInvoice, DuplicateInvoiceResult, UpdateInvoice } from './invoice-commands';
import { buildLines, lineWith, resolveLines, scaledLineOf } from './invoice-lines';
import { withCurrentTax } from './invoice-current-tax';

/** The Invoice aggregate's deciders: each returns the events of its command or throws a typed error. */

export function decideCreateInvoice(command: CreateInvoice, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  if (state.status !== 'none') throw new ConflictError('invoice-exists', `invoice ${command.invoiceId} already exists`);
  const items = resolveLines(command.items ?? [], command.taxes);
  const date = command.date == null ? today(meta) : validDate(command.date, '/date');
  const dueDate = validDueDate(command.dueDate ?? null, date);
  // Create shares the update rules with an empty invoice: a line id cannot refer to anything yet.
  const lines = buildLines(items, [], meta);
  return [
    {
      type: 'InvoiceCreated',
      schemaVersion: 1,
      data: {
        invoiceId: command.invoiceId,
        type: 'invoice',
        customer: validCustomer(command.customer),
        currency: validCurrency(command.currency),
        date,
        dueDate,
        memo: command.memo ?? null,
        lines,
        creditedInvoiceId: null,
        duplicatedFromInvoiceId: null,
        createdAt: meta.now.toISOString(),
      },
    },
  ];
}

export function decideUpdateInvoice(command: UpdateInvoice, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  const invoice = existing(state, command.invoiceId);
  if (invoice.status !== 'draft') throw new ConflictError('invoice-not-draft', 'only draft invoices can be updated');
  const items = command.items == null ? command.items : resolveLines(command.items, command.taxes);
  const date = validDate(command.date, '/date');
  const currency = command.currency === null ? invoice.currency : validCurrency(command.currency);
  const dueDate = validDueDate(command.dueDate === undefined ? invoice.dueDate : command.dueDate, date);
  const lines = items === undefined ? withCurrentTax(invoice, command.taxes).lines : buildLines(items ?? [], invoice.lines, meta);
  return [
    {
      type: 'InvoiceUpdated',
      schemaVersion: 1,
      data: { invoiceId: invoice.id, date, currency, dueDate, lines, updatedAt: meta.now.toISOString() },
    },
  ];
}

/**
 * Booking an invoice without lines is refused (409 invoice-has-no-lines): it
 * would consume a gapless number for a document that bills nothing.
 */
export function decideBookInvoice(command: BookInvoice, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  const draft = existing(state, command.invoiceId);
  if (draft.status !== 'draft') throw new ConflictError('invoice-already-booked', `invoice ${draft.id} is already booked`);
  if (draft.lines.length === 0) throw new ConflictError('invoice-has-no-lines', 'an invoice without lines cannot be booked');
  if (command.handle.length === 0) throw new Error('BookInvoice needs an allocated handle');
  const invoice = withCurrentTax(draft, command.taxes);
  // Without a date the draft keeps its own, which create and update already checked against its due date.
  const date = command.date == null ? invoice.date : validDate(command.date, '/date');
  if (invoice.dueDate !== null && invoice.dueDate < date) {
    throw ValidationError.at('/date', `must not be after the invoice's due date ${invoice.dueDate}: book with an earlier date, or update the due date first`);
  }
  const { totalExclVat, totalVat, totalInclVat } = invoice;
  return [
    {
      type: 'InvoiceBooked',
      schemaVersion: 1,
      data: {
        invoiceId: invoice.id,
        type: invoice.type,
        handle: command.handle,
        date,
        dueDate: invoice.dueDate,
        lines: invoice.lines,
        totalExclVat,
        totalVat,
        totalInclVat,
        creditedInvoiceId: invoice.creditedInvoiceId,
        bookedAt: meta.now.toISOString(),
      },
    },
  ];
}

export function decideAddSettlement(command: AddSettlement, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  const invoice = existing(state, command.invoiceId);
  if (invoice.status !== 'booked') throw new ConflictError('invoice-not-booked', 'settlements can only be added to booked invoices');
  const amount = parseAmount(command.amount, '/amount');
  if (amount === 0n) throw ValidationError.at('/amount', 'must not be 0');
  const settled = assertAmountInRange(BigInt(invoice.settledAmount) + amount, '/amount');
  totalDue(BigInt(invoice.totalInclVat), settled, '/amount');
  return [
    {
      type: 'InvoiceSettlementAdded',
      schemaVersion: 1,
      data: {
        invoiceId: invoice.id,
        date: validDate(command.date, '/date'),
        amount: Number(amount),
        reference: command.reference ?? null,
        note: command.note ?? null,
        addedAt: meta.now.toISOString(),
        settlementStatus: settlementStatus(BigInt(invoice.totalInclVat), settled),
        ...(command.paymentId ? { paymentId: command.paymentId } : {}),
        ...(command.refundedCreditNoteId ? { refundedCreditNoteId: command.refundedCreditNoteId } : {}),
      },
    },
  ];
}

/**
 * reverse false: a new draft of the same type with the same customer,
 * currency, memo and lines (new ids), an invoice priced at the register's
 * current rates. A duplicated credit note stays linked to the invoice it
 * credits and keeps its rates.
 * reverse true: a draft credit note for a booked invoice, every figure negated
 * at the invoice's own rates (refused once the invoice's credit notes credit
 * its whole total; booking the credit note checks it against what is still
 * creditable then).
 * Both: date today, and the payment term (dueDate − date) of the source is kept.
 */
export function decideDuplicateInvoice(command: DuplicateInvoice, state: InvoiceState, meta: CommandMetadata): DuplicateInvoiceResult {
  const source = existing(state, command.invoiceId);
  if (command.reverse) {
    if (source.type === 'credit_note') throw new ConflictError('credit-note-cannot-be-reversed', 'a credit note cannot be reversed');
    if (source.status !== 'booked') throw new ConflictError('invoice-not-booked', 'only booked invoices can be credited');
    if (source.totalInclVat !== 0 && source.creditedAmount === source.totalInclVat) {
      throw new ConflictError(
        'credit-exceeds-invoice',
        `${source.handle ?? source.id} is fully credited: its credit notes already credit its total ${source.totalInclVat}, 0 is still creditable.`,
      );
    }
  }
  const date = today(meta);
  const type = command.reverse ? 'credit_note' : source.type;
  const lines = source.lines.map((line, i) => {
    const pointer = `/items/${i}`;
    // A new invoice is priced at today's rates; a credit note credits at the rates of the invoice it credits.
    const current = type === 'invoice' && line.tax.taxCode !== null ? command.taxes.get(line.tax.taxCode) : undefined;
    const tax = current ? { taxCode: current.taxCode, taxable: current.taxable, taxRate: current.taxRate } : line.tax;
    const scaled = scaledLineOf({ ...line, tax }, pointer);
    return lineWith({ ...line, tax, id: meta.newId() }, command.reverse ? negateLine(scaled) : scaled, pointer);
  });
  const created: InvoiceCreated = {
    type: 'InvoiceCreated',
    schemaVersion: 1,
    data: {
      invoiceId: command.newInvoiceId,
      type,
      customer: source.customer,
      currency: source.currency,
      date,
      dueDate: source.dueDate === null ? null : addDays(date, daysBetween(source.date, source.dueDate)),
      memo: source.memo,
      lines,
      creditedInvoiceId: command.reverse ? source.id : source.creditedInvoiceId,
      duplicatedFromInvoiceId: source.id,
      createdAt: meta.now.toISOString(),
    },
  };
  const duplicated: InvoiceDuplicated = {
    type: 'InvoiceDuplicated',
    schemaVersion: 1,
    data: { invoiceId: source.id, newInvoiceId: command.newInvoiceId, reverse: command.reverse, duplicatedAt: meta.now.toISOString() },
  };
  return { sourceEvents: [duplicated], newStreamEvents: [created] };
}

function existing(state: InvoiceState, invoiceId: string): Invoice {
  if (state.status === 'none') throw new NotFoundError('Invoice', invoiceId);
  return state;
}

function validCurrency(value: unknown): string {
  const code = typeof value === 'string' ? value.toLowerCase() : null;
  if (!isSupportedCurrency(code)) throw ValidationError.at('/currency', 'must be a supported ISO 4217 currency code', 'unsupported-currency');
  return code.toUpperCase();
}

function validCustomer(customer: CustomerInput): InvoiceCustomer {
  if (typeof customer?.id !== 'string' || customer.id.length === 0) throw ValidationError.at('/customer/id', 'is required');
  // Required but nullable (InvoiceCustomer): a customer without them is a 422, not silently null.
  const missing = (['handle', 'name'] as const).filter((field) => customer[field] === undefined);
  if (missing.length > 0) {
    throw new ValidationError(
      'The customer needs a handle and a name (either may be null).',
      missing.map((field) => ({ pointer: `/customer/${field}`, detail: 'is required: a string, or null' })),
    );
  }
  const address: Partial<Address> = customer.billingAddress ?? {};
  return {
    id: customer.id,
    handle: customer.handle,
    name: customer.name,
    billingAddress: {
      street1: address.street1 ?? null,
      street2: address.street2 ?? null,
      postalCode: address.postalCode ?? null,
      city: address.city ?? null,
      county: address.county ?? null,
      country: address.country ?? null,
      state: address.state ?? null,
    },
  };
}

/** The due date never precedes the invoice date (checked on create, update and booking). */
function validDueDate(dueDate: string | null, date: string): string | null {
  if (dueDate === null) return null;
  const valid = validDate(dueDate, '/dueDate');
  if (valid < date) throw ValidationError.at('/dueDate', 'must not be before the invoice date');
  return valid;
}
