import {
  CommandMetadata,
  ConflictError,
  DomainError,
  NotFoundError,
  ValidationError,
  addDays,
  assertAmountInRange,
  daysBetween,
  isSupportedCurrency,
  validDate,
  deciderOf,
} from '@billing/shared-kernel';
import { today } from './calendar';
import { Address, InvoiceCreated, InvoiceCustomer, InvoiceDuplicated, InvoiceEvent } from './invoice-events';
import { negateLine, parseAmount, settlementStatus, totalDue } from './invoice-maths';
import { Invoice, invoiceEvolver, InvoiceState } from './invoice';
import {
  AddSettlement,
  BookInvoice,
  CreateInvoice,
  CustomerInput,
  DuplicateInvoice,
  DuplicateInvoiceResult,
  MarkInvoiceUncollectible,
  RotateHostedLink,
  UpdateInvoice,
  VoidInvoice,
} from './invoice-commands';
import { buildLines, lineWith, resolveLines, scaledLineOf, withCoupons } from './invoice-lines';
import { validEmail } from './customer';
import { withCurrentTax } from './invoice-current-tax';

/** The Invoice aggregate's deciders: each returns the events of its command or throws a typed error. */

export function decideCreateInvoice(command: CreateInvoice, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  if (state.status !== 'none') throw new ConflictError('invoice-exists', `invoice ${command.invoiceId} already exists`);
  const items = resolveLines(command.items ?? [], command.taxes);
  const date = command.date == null ? today(meta) : validDate(command.date, '/date');
  const dueDate = validDueDate(command.dueDate ?? null, date);
  // Create shares the update rules with an empty invoice: a line id cannot refer to anything yet.
  const discounts = command.discounts ?? [];
  const lines = withCoupons(buildLines(items, [], meta), discounts);
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
        ...(command.customerId ? { customerId: command.customerId } : {}),
        ...(discounts.length > 0 ? { discounts } : {}),
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
  const kept = items === undefined ? withCurrentTax(invoice, command.taxes).lines : buildLines(items ?? [], invoice.lines, meta);
  // The draft's coupons (the update's, or those it has) on its lines as they are now; their amounts are in its currency.
  const discounts = command.discounts ?? invoice.discounts ?? [];
  if (currency !== invoice.currency && discounts.some((discount) => discount.amountOff !== null || discount.minimumAmount !== null)) {
    throw ValidationError.at('/currency', `must stay ${invoice.currency}: the draft's coupons take amounts in it`);
  }
  const lines = withCoupons(kept, discounts);
  return [
    {
      type: 'InvoiceUpdated',
      schemaVersion: 1,
      data: {
        invoiceId: invoice.id,
        date,
        currency,
        dueDate,
        lines,
        updatedAt: meta.now.toISOString(),
        // A draft made out to a customer record takes its current snapshot with every update.
        ...(invoice.customerId != null && command.customer ? { customer: command.customer } : {}),
        ...(command.discounts ? { discounts: command.discounts } : {}),
      },
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
  if (command.manual && invoice.type === 'invoice' && invoice.totalInclVat < 0) throw negativeTotal(invoice);
  // Without a date the draft keeps its own, which create and update already checked against its due date.
  const date = command.date == null ? invoice.date : validDate(command.date, '/date');
  if (invoice.dueDate !== null && invoice.dueDate < date) {
    throw ValidationError.at('/date', `must not be after the invoice's due date ${invoice.dueDate}: book with an earlier date, or update the due date first`);
  }
  // Made out to a customer record: the record as it is now is frozen in, and its payment terms date an invoice without a due date.
  const customer = invoice.customerId != null ? command.customer : undefined;
  const terms = customer?.paymentTermsDays;
  const dueDate = invoice.dueDate ?? (terms == null ? null : addDays(date, terms));
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
        dueDate,
        lines: invoice.lines,
        totalExclVat,
        totalVat,
        totalInclVat,
        creditedInvoiceId: invoice.creditedInvoiceId,
        bookedAt: meta.now.toISOString(),
        ...(customer ? { customer: customer.snapshot } : {}),
      },
    },
  ];
}

/** An invoice bills: one whose lines add up to a credit would be an INV- document that owes the customer. */
function negativeTotal(invoice: Invoice): DomainError {
  const detail = `the lines add up to ${invoice.totalInclVat} (minor units of ${invoice.currency}): an invoice's total must not be negative`;
  return new DomainError('conflict', 'invoice-total-negative', `${detail}; issue a credit note against the invoice it credits instead`, [
    { pointer: '/items', detail },
  ]);
}

export function decideAddSettlement(command: AddSettlement, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  const invoice = existing(state, command.invoiceId);
  if (invoice.status === 'void') throw voidError(invoice);
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
    if (source.status === 'void') throw voidError(source);
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
    // A credit note credits the lines as billed, coupons included; a copy bills them again without the source's coupons (not redeemed on it).
    return lineWith({ ...line, tax, id: meta.newId() }, command.reverse ? negateLine(scaled) : { ...scaled, coupon: 0n }, pointer);
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
      // A copy stays made out to the customer record (a draft shows it as it is); a credit note names the customer the booked invoice froze.
      ...(!command.reverse && source.customerId != null ? { customerId: source.customerId } : {}),
    },
  };
  const duplicated: InvoiceDuplicated = {
    type: 'InvoiceDuplicated',
    schemaVersion: 1,
    data: { invoiceId: source.id, newInvoiceId: command.newInvoiceId, reverse: command.reverse, duplicatedAt: meta.now.toISOString() },
  };
  return { sourceEvents: [duplicated], newStreamEvents: [created] };
}

/**
 * Voids a booked invoice that nothing has settled: it stays booked in the
 * books with its number (the sequence stays gapless), shows nothing due, and
 * is no longer collected or payable. Refused (409) for a draft
 * (`invoice-not-booked`: it bills nothing until booked), a credit note
 * (`invoice-is-credit-note`) and an invoice with any settlement
 * (`invoice-paid`: a payment, even one refunded since, or a credit note
 * applied: credit it instead); credit applied from the customer's balance
 * does not count (the void returns it). Voiding a void invoice changes nothing.
 */
export function decideVoidInvoice(command: VoidInvoice, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  const invoice = collectableInvoice(state, command.invoiceId, 'voided');
  if (invoice.status === 'void') return [];
  // Credit taken from the customer's balance is no payment: the void gives it back (decideReturnCustomerCredit).
  if (invoice.settlements.some((settlement) => settlement.balanceEntryId == null)) {
    throw new ConflictError(
      'invoice-paid',
      `invoice ${invoice.handle} has settlements (${invoice.settledAmount} of ${invoice.totalInclVat} ${invoice.currency} settled): credit it instead of voiding it`,
    );
  }
  if (command.paymentTaken) {
    throw new ConflictError(
      'invoice-payment-under-way',
      `a payment of invoice ${invoice.handle} is under way or has succeeded: void it once the payment failed, or credit it once it settled`,
    );
  }

  return [
    {
      type: 'InvoiceVoided',
      schemaVersion: 1,
      data: { invoiceId: invoice.id, customerId: invoice.customer.id, currency: invoice.currency, voidedAt: meta.now.toISOString() },
    },
  ];
}

/**
 * Marks a booked invoice with something due uncollectible: its collection
 * stops, it stays payable, and a settlement that settles it clears the mark.
 * Refused (409) for a draft, a credit note, a void invoice and one with
 * nothing due (`invoice-nothing-due`); marking it again changes nothing.
 */
export function decideMarkInvoiceUncollectible(command: MarkInvoiceUncollectible, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  const invoice = collectableInvoice(state, command.invoiceId, 'marked uncollectible');
  if (invoice.status === 'void') throw voidError(invoice);
  if (invoice.uncollectible === true) return [];
  const due = totalDue(BigInt(invoice.totalInclVat), BigInt(invoice.settledAmount));
  if (due <= 0n) throw new ConflictError('invoice-nothing-due', `invoice ${invoice.handle} has nothing due (total due ${due}): there is nothing to collect`);
  return [{ type: 'InvoiceMarkedUncollectible', schemaVersion: 1, data: { invoiceId: invoice.id, markedAt: meta.now.toISOString() } }];
}

/**
 * Replaces a booked invoice's (or credit note's, void or not) hosted page link: the next link version, so every
 * earlier link stops opening the page. A draft has no link (`invoice-not-booked`, 409).
 */
export function decideRotateHostedLink(command: RotateHostedLink, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  const invoice = existing(state, command.invoiceId);
  if (invoice.status === 'draft') {
    throw new ConflictError('invoice-not-booked', `invoice ${invoice.id} is a draft: only a booked invoice has a hosted page link`);
  }
  const linkVersion = (invoice.hostedLinkVersion ?? 0) + 1;
  return [{ type: 'InvoiceHostedLinkRotated', schemaVersion: 1, data: { invoiceId: invoice.id, linkVersion, rotatedAt: meta.now.toISOString() } }];
}

/** A booked (or void) invoice, not a credit note: what voiding and marking uncollectible apply to. */
function collectableInvoice(state: InvoiceState, invoiceId: string, action: string): Invoice {
  const invoice = existing(state, invoiceId);
  if (invoice.type === 'credit_note')
    throw new ConflictError('invoice-is-credit-note', `${invoice.handle ?? invoice.id} is a credit note: only invoices are ${action}`);
  if (invoice.status === 'draft')
    throw new ConflictError(
      'invoice-not-booked',
      `invoice ${invoice.id} is a draft: only booked invoices are ${action} (a draft bills nothing until it is booked)`,
    );
  return invoice;
}

function existing(state: InvoiceState, invoiceId: string): Invoice {
  if (state.status === 'none') throw new NotFoundError('Invoice', invoiceId);
  return state;
}

/** A void invoice is closed: nothing is settled on it, credited or collected (copy it into a new draft instead). */
function voidError(invoice: Invoice): ConflictError {
  return new ConflictError('invoice-void', `invoice ${invoice.handle ?? invoice.id} is void`);
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
    email: customer.email == null ? null : validEmail(customer.email, '/customer/email'),
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

/** The Invoice aggregate as one value: what it folds (invoiceEvolver) and what each of its commands decides. */
export const invoiceDecider = deciderOf(invoiceEvolver, {
  CreateInvoice: decideCreateInvoice,
  UpdateInvoice: decideUpdateInvoice,
  BookInvoice: decideBookInvoice,
  AddSettlement: decideAddSettlement,
  VoidInvoice: decideVoidInvoice,
  MarkInvoiceUncollectible: decideMarkInvoiceUncollectible,
  RotateHostedLink: decideRotateHostedLink,
});
