import {
  CommandMetadata,
  ConflictError,
  Evolver,
  NotFoundError,
  ValidationError,
  assertAmountInRange,
  isSupportedCurrency,
  scaledToNumber,
} from '@billing/shared-kernel';
import { addDays, daysBetween, today, validDate } from './calendar';
import { Address, InvoiceCreated, InvoiceCustomer, InvoiceDuplicated, InvoiceEvent, InvoiceLine, InvoiceSettlement, InvoiceType } from './invoice-events';
import {
  LineFigures,
  PERCENTAGE_SCALE,
  QUANTITY_SCALE,
  ScaledLine,
  TAX_RATE_SCALE,
  computeLine,
  computeTotals,
  negateLine,
  parseAmount,
  parseLine,
  parseTaxRate,
  settlementStatus,
  taxOf,
  totalDue,
} from './invoice-maths';
import { NO_TAX, ResolvedTax, TaxRegister } from './tax-code';

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
 * Lines per invoice. Generous for any bill a person reads (a detailed usage
 * invoice runs to a few hundred lines) while keeping an invoice, its events
 * and its webhook notifications a few hundred kilobytes at most.
 */
export const MAX_INVOICE_LINES = 500;

export type InvoiceStatus = 'draft' | 'booked';

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
  readonly lines: readonly InvoiceLine[];
  readonly settlements: readonly InvoiceSettlement[];
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
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly creditedInvoiceId: string | null;
  readonly duplicatedFromInvoiceId: string | null;
}
/** Before its InvoiceCreated an invoice stream holds nothing: `none`, like every aggregate of the service. */
export type InvoiceState = { readonly status: 'none' } | Invoice;

// ---------------------------------------------------------------- commands

/** A line as a command names it: its tax code by name, resolved by the decider against the command's register. */
export interface RequestedLine {
  /** The id of a line of the invoice to keep it (update only); absent or null: a new line. */
  readonly id?: string | null;
  readonly quantity: number;
  readonly unitAmount: number;
  readonly title?: string | null;
  readonly description?: string | null;
  readonly sku?: string | null;
  readonly periodStart?: string | null;
  readonly periodEnd?: string | null;
  readonly discount?: { readonly percentage?: number | null; readonly amount?: number | null } | null;
  /** A code of the environment's register; absent or null: the line is not taxed. */
  readonly taxCode?: string | null;
}

/** The customer as a command gives it: the address and each of its members may be absent (stored as null). */
export interface CustomerInput {
  readonly id: string;
  /** Required, but may be null. */
  readonly handle: string | null;
  /** Required, but may be null. */
  readonly name: string | null;
  readonly billingAddress?: Partial<Address> | null;
}

export interface CreateInvoice {
  readonly invoiceId: string;
  readonly customer: CustomerInput;
  readonly currency: string;
  /** default: today (UTC) from meta.now */
  readonly date?: string | null;
  readonly dueDate?: string | null;
  readonly memo?: string | null;
  readonly items?: readonly RequestedLine[] | null;
  /** The register's entries for the codes the items name: a code it lacks is unknown (422 unknown-tax-code). */
  readonly taxes: TaxRegister;
}

/** The PUT body. `currency: null` keeps the currency; `dueDate`/`items` undefined keep, null clears. */
export interface UpdateInvoice {
  readonly invoiceId: string;
  readonly date: string;
  readonly currency: string | null;
  readonly dueDate?: string | null;
  readonly items?: readonly RequestedLine[] | null;
  /** The register's entries for the codes the items name or, items omitted, the kept lines name (written at today's rates). */
  readonly taxes: TaxRegister;
}

export interface BookInvoice {
  readonly invoiceId: string;
  /** the gapless number allocated by the infrastructure, see formatInvoiceHandle */
  readonly handle: string;
  /** default: the draft's own date (booking never silently re-dates an invoice) */
  readonly date?: string | null;
  /** The current register for the draft's tax codes: an invoice is booked at these rates. */
  readonly taxes: TaxRegister;
}

export interface AddSettlement {
  readonly invoiceId: string;
  readonly date: string;
  readonly amount: number;
  readonly reference?: string | null;
  readonly note?: string | null;
}

export interface DuplicateInvoice {
  /** the source invoice */
  readonly invoiceId: string;
  readonly newInvoiceId: string;
  readonly reverse: boolean;
  /** The current register for the source's tax codes: a copied invoice gets today's rates (a credit note keeps the source's). */
  readonly taxes: TaxRegister;
}

export interface DuplicateInvoiceResult {
  /** append to the source stream */
  readonly sourceEvents: InvoiceEvent[];
  /** append to the new stream (expected: no stream) */
  readonly newStreamEvents: InvoiceEvent[];
}

// ---------------------------------------------------------------- evolve

export function initialInvoiceState(): InvoiceState {
  return { status: 'none' };
}

export function evolveInvoice(state: InvoiceState, event: InvoiceEvent): InvoiceState {
  if (event.type === 'InvoiceCreated') {
    const { invoiceId, type, customer, currency, date, dueDate, memo, lines, creditedInvoiceId, duplicatedFromInvoiceId, createdAt } = event.data;
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
      lines,
      settlements: [],
      ...totalsOf(lines),
      settledAmount: 0,
      creditedAmount: 0,
      createdAt,
      updatedAt: null,
      creditedInvoiceId,
      duplicatedFromInvoiceId,
    };
  }
  // Events of a stream always start with InvoiceCreated; anything else on an empty state is ignored.
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'InvoiceUpdated': {
      const { date, currency, dueDate, lines, updatedAt } = event.data;
      return { ...state, date, currency, dueDate, lines, ...totalsOf(lines), updatedAt };
    }
    case 'InvoiceBooked': {
      const { handle, date, dueDate, lines, totalExclVat, totalVat, totalInclVat, bookedAt } = event.data;
      return {
        ...state,
        status: 'booked',
        handle,
        date,
        dueDate,
        lines: lines ?? state.lines,
        totalExclVat,
        totalVat,
        totalInclVat,
        updatedAt: bookedAt,
      };
    }
    case 'InvoiceSettlementAdded': {
      const { date, amount, reference, note, addedAt, creditNoteId } = event.data;
      return {
        ...state,
        settlements: [...state.settlements, { date, amount, reference, note }],
        settledAmount: state.settledAmount + amount,
        creditedAmount: creditNoteId == null ? state.creditedAmount : state.creditedAmount + amount,
        updatedAt: addedAt,
      };
    }
    case 'InvoiceDuplicated':
      return state;
    default:
      return state; // an event type from a newer release: ignored rather than fatal
  }
}

export const invoiceEvolver: Evolver<InvoiceState, InvoiceEvent> = {
  initialState: initialInvoiceState,
  evolve: evolveInvoice,
};

// ---------------------------------------------------------------- deciders

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

// ---------------------------------------------------------------- tax and numbering

/**
 * A draft invoice priced at the register's current rates: each line naming a
 * code of the register takes its current taxability and rate, and its tax and
 * the totals are recomputed (the line amount does not depend on tax). Booked
 * invoices and credit notes are returned as they are. May throw
 * `amount-out-of-range` at /items when a higher rate pushes a total beyond the limit.
 */
export function withCurrentTax(invoice: Invoice, register: TaxRegister): Invoice {
  if (invoice.status !== 'draft' || invoice.type !== 'invoice' || register.size === 0) return invoice;
  let changed = false;
  const lines = invoice.lines.map((line, i) => {
    const current = line.tax.taxCode === null ? undefined : register.get(line.tax.taxCode);
    if (!current || (current.taxable === line.tax.taxable && current.taxRate === line.tax.taxRate)) return line;
    changed = true;
    const rate = parseTaxRate(current.taxRate, `/items/${i}/taxCode`);
    return {
      ...line,
      tax: { taxCode: line.tax.taxCode, taxable: current.taxable, taxRate: current.taxRate },
      taxAmount: Number(taxOf(BigInt(line.amount), current.taxable, rate)),
    };
  });
  return changed ? { ...invoice, lines, ...totalsOf(lines) } : invoice;
}

/** The tax codes an invoice's lines name, each once. */
export function taxCodesOf(invoice: Pick<Invoice, 'lines'>): string[] {
  return uniqueCodes(invoice.lines.map((line) => line.tax.taxCode));
}

/** The tax codes requested lines name, each once: what a create or update needs of the register. */
export function taxCodesNamedBy(items: readonly RequestedLine[] | null | undefined): string[] {
  return uniqueCodes((items ?? []).map((item) => item?.taxCode));
}

/** `INV-000001` for invoices, `CN-000001` for credit notes (six digits, more when needed). */
export function formatInvoiceHandle(type: InvoiceType, sequenceNumber: number): string {
  if (!Number.isSafeInteger(sequenceNumber) || sequenceNumber < 1) throw new RangeError('sequence numbers start at 1');
  return `${type === 'credit_note' ? 'CN' : 'INV'}-${String(sequenceNumber).padStart(6, '0')}`;
}

// ---------------------------------------------------------------- helpers

function existing(state: InvoiceState, invoiceId: string): Invoice {
  if (state.status === 'none') throw new NotFoundError('Invoice', invoiceId);
  return state;
}

function uniqueCodes(codes: readonly (string | null | undefined)[]): string[] {
  return [...new Set(codes.filter((code): code is string => typeof code === 'string'))];
}

/** A requested line with its tax code resolved. */
interface ResolvedLine extends Omit<RequestedLine, 'taxCode'> {
  readonly tax: ResolvedTax;
}

/**
 * Checks the number of lines and resolves the tax code each names against the
 * register: no code means not taxed; an unknown code is a 422 at
 * `/items/<i>/taxCode` (all unknown codes are reported at once).
 */
function resolveLines(items: readonly RequestedLine[], taxes: TaxRegister): ResolvedLine[] {
  if (items.length > MAX_INVOICE_LINES) throw ValidationError.at('/items', `must have at most ${MAX_INVOICE_LINES} lines (has ${items.length})`);
  const errors = items.flatMap((item, i) =>
    typeof item.taxCode === 'string' && !taxes.has(item.taxCode) ? [{ pointer: `/items/${i}/taxCode`, detail: 'is not a tax code of this environment' }] : [],
  );
  if (errors.length > 0) throw new ValidationError('The request names an unknown tax code.', errors, 'unknown-tax-code');
  return items.map(({ taxCode, ...line }) => ({ ...line, tax: (typeof taxCode === 'string' ? taxes.get(taxCode) : undefined) ?? NO_TAX }));
}

/** Replaces the lines: a given id must name a line of the invoice (and keeps it), no id gets a new one. */
function buildLines(items: readonly ResolvedLine[], current: readonly InvoiceLine[], meta: CommandMetadata): InvoiceLine[] {
  const known = new Set(current.map((line) => line.id));
  const seen = new Set<string>();
  const lines = items.map((item, i) => {
    const pointer = `/items/${i}`;
    let id: string;
    if (item.id == null) {
      id = meta.newId();
    } else {
      if (!known.has(item.id)) throw ValidationError.at(`${pointer}/id`, 'is not a line of this invoice');
      if (seen.has(item.id)) throw ValidationError.at(`${pointer}/id`, 'names a line twice');
      seen.add(item.id);
      id = item.id;
    }
    const periodStart = item.periodStart == null ? null : validDate(item.periodStart, `${pointer}/periodStart`);
    const periodEnd = item.periodEnd == null ? null : validDate(item.periodEnd, `${pointer}/periodEnd`);
    if (periodStart !== null && periodEnd !== null && periodEnd < periodStart) {
      throw ValidationError.at(`${pointer}/periodEnd`, 'must not be before periodStart');
    }
    const { tax } = item;
    const scaled = parseLine({ quantity: item.quantity, unitAmount: item.unitAmount, discount: item.discount, taxable: tax.taxable, taxRate: tax.taxRate }, pointer);
    const base = {
      id,
      sku: item.sku ?? null,
      title: item.title ?? null,
      description: item.description ?? null,
      periodStart,
      periodEnd,
      tax: { taxCode: tax.taxCode, taxable: tax.taxable, taxRate: tax.taxRate },
    };
    return lineWith(base, scaled, pointer);
  });
  computeTotals(lines.map(figuresOf));
  return lines;
}

/** Completes a line from its descriptive fields and its exact inputs: numbers are written back from the scaled values. */
function lineWith(
  base: Pick<InvoiceLine, 'id' | 'sku' | 'title' | 'description' | 'periodStart' | 'periodEnd' | 'tax'>,
  scaled: ScaledLine,
  pointer: string,
): InvoiceLine {
  const figures = computeLine(scaled, pointer);
  const discount = scaled.discount;
  return {
    id: base.id,
    sku: base.sku,
    title: base.title,
    description: base.description,
    periodStart: base.periodStart,
    periodEnd: base.periodEnd,
    quantity: scaledToNumber(scaled.quantity, QUANTITY_SCALE),
    unitAmount: Number(scaled.unitAmount),
    discount:
      discount === null
        ? null
        : discount.kind === 'percentage'
          ? { percentage: scaledToNumber(discount.percentage, PERCENTAGE_SCALE), amount: null }
          : { percentage: null, amount: Number(discount.amount) },
    tax: { ...base.tax, taxRate: scaledToNumber(scaled.taxRate, TAX_RATE_SCALE) },
    discountAmount: Number(figures.discount),
    amount: Number(figures.amount),
    taxAmount: Number(figures.taxAmount),
  };
}

function scaledLineOf(line: InvoiceLine, pointer: string): ScaledLine {
  return parseLine({ ...line, taxable: line.tax.taxable, taxRate: line.tax.taxRate }, pointer);
}

function figuresOf(line: InvoiceLine): Pick<LineFigures, 'amount' | 'taxAmount'> {
  return { amount: BigInt(line.amount), taxAmount: BigInt(line.taxAmount) };
}

function totalsOf(lines: readonly InvoiceLine[]): Pick<Invoice, 'totalExclVat' | 'totalVat' | 'totalInclVat'> {
  const totals = computeTotals(lines.map(figuresOf));
  return {
    totalExclVat: Number(totals.totalExclVat),
    totalVat: Number(totals.totalVat),
    totalInclVat: Number(totals.totalInclVat),
  };
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
