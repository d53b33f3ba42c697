import {
  CommandMetadata,
  ConflictError,
  DomainEvent,
  Evolver,
  NotFoundError,
  ValidationError,
  assertAmountInRange,
  isSupportedCurrency,
  scaledToNumber,
} from '@billing/shared-kernel';
import {
  LineFigures,
  PERCENTAGE_SCALE,
  QUANTITY_SCALE,
  ScaledLine,
  SettlementStatus,
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
 * from CommandMetadata. Event data is self-contained JSON: every line carries
 * its resolved tax and its computed cents, so read models and later
 * projections never need the rounding code.
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
export type InvoiceType = 'invoice' | 'credit_note';

export interface Address {
  readonly street1: string | null;
  readonly street2: string | null;
  readonly postalCode: string | null;
  readonly city: string | null;
  readonly county: string | null;
  readonly country: string | null;
  readonly state: string | null;
}

export interface InvoiceCustomer {
  readonly id: string;
  readonly handle: string | null;
  readonly name: string | null;
  readonly billingAddress: Address;
}

/** Discount as given on the line: exactly one member is non-null. */
export interface LineDiscount {
  readonly percentage: number | null;
  readonly amount: number | null;
}

/** A line as stored in events and state. */
export interface InvoiceLine {
  readonly id: string;
  readonly sku: string | null;
  readonly title: string | null;
  readonly description: string | null;
  readonly periodStart: string | null;
  readonly periodEnd: string | null;
  readonly quantity: number;
  readonly unitAmount: number;
  readonly discount: LineDiscount | null;
  readonly tax: ResolvedTax;
  /** computed: the discount in cents */
  readonly discountAmount: number;
  /** computed: round(unitAmount × quantity) − discountAmount */
  readonly amount: number;
  readonly taxAmount: number;
}

export interface InvoiceSettlement {
  readonly date: string;
  readonly amount: number;
  readonly reference: string | null;
  readonly note: string | null;
}

/** A line in a create/update command (the PUT update-line, its taxCode already resolved by the caller). */
export interface InvoiceLineInput {
  readonly id?: string | null;
  readonly quantity: number;
  readonly unitAmount: number;
  readonly title?: string | null;
  readonly description?: string | null;
  readonly sku?: string | null;
  readonly periodStart?: string | null;
  readonly periodEnd?: string | null;
  readonly discount?: { readonly percentage?: number | null; readonly amount?: number | null } | null;
  /** Absent or null: the line has no tax code and is not taxed. */
  readonly tax?: ResolvedTax | null;
}

export interface Invoice {
  readonly exists: true;
  readonly id: string;
  readonly status: InvoiceStatus;
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
  /** number of events folded */
  readonly version: number;
}
export type InvoiceState = { readonly exists: false; readonly version: 0 } | Invoice;

// ---------------------------------------------------------------- events

export interface InvoiceCreatedData {
  readonly invoiceId: string;
  readonly type: InvoiceType;
  readonly customer: InvoiceCustomer;
  readonly currency: string;
  readonly date: string;
  readonly dueDate: string | null;
  readonly memo: string | null;
  readonly lines: readonly InvoiceLine[];
  /** set on credit notes: the booked invoice they credit */
  readonly creditedInvoiceId: string | null;
  /** set on duplicates and credit notes: the source invoice */
  readonly duplicatedFromInvoiceId: string | null;
  readonly createdAt: string;
}
/** The draft after the update, in full. */
export interface InvoiceUpdatedData {
  readonly invoiceId: string;
  readonly date: string;
  readonly currency: string;
  readonly dueDate: string | null;
  readonly lines: readonly InvoiceLine[];
  readonly updatedAt: string;
}
/** Records the frozen totals so the booked figures never depend on recomputation. */
export interface InvoiceBookedData {
  readonly invoiceId: string;
  readonly type: InvoiceType;
  readonly handle: string;
  readonly date: string;
  readonly dueDate: string | null;
  /** The lines as booked, at the tax rates current at booking (absent on events written before repricing). */
  readonly lines?: readonly InvoiceLine[];
  readonly totalExclVat: number;
  readonly totalVat: number;
  readonly totalInclVat: number;
  readonly creditedInvoiceId: string | null;
  readonly bookedAt: string;
}
export interface InvoiceSettlementAddedData extends InvoiceSettlement {
  readonly invoiceId: string;
  readonly addedAt: string;
  /** The invoice's settlement status after this settlement (webhooks emit invoice.settled on `settled`). */
  readonly settlementStatus: SettlementStatus;
  /**
   * On an invoice: the booked credit note this settlement applies, so the
   * invoice knows how much its credit notes credit. Absent or null: a payment
   * or refund (and on events written before credit tracking).
   */
  readonly creditNoteId?: string | null;
  /** On a credit note: the invoice it was applied to, which settles the credit note. */
  readonly appliedToInvoiceId?: string | null;
}
/** On the source stream: it was copied (reverse false) or credited (reverse true) into newInvoiceId. */
export interface InvoiceDuplicatedData {
  readonly invoiceId: string;
  readonly newInvoiceId: string;
  readonly reverse: boolean;
  readonly duplicatedAt: string;
}

export type InvoiceCreated = DomainEvent<'InvoiceCreated', InvoiceCreatedData>;
export type InvoiceUpdated = DomainEvent<'InvoiceUpdated', InvoiceUpdatedData>;
export type InvoiceBooked = DomainEvent<'InvoiceBooked', InvoiceBookedData>;
export type InvoiceSettlementAdded = DomainEvent<'InvoiceSettlementAdded', InvoiceSettlementAddedData>;
export type InvoiceDuplicated = DomainEvent<'InvoiceDuplicated', InvoiceDuplicatedData>;
export type InvoiceEvent = InvoiceCreated | InvoiceUpdated | InvoiceBooked | InvoiceSettlementAdded | InvoiceDuplicated;

export const INVOICE_EVENT_TYPES = [
  'InvoiceCreated',
  'InvoiceUpdated',
  'InvoiceBooked',
  'InvoiceSettlementAdded',
  'InvoiceDuplicated',
] as const satisfies readonly InvoiceEvent['type'][];

// ---------------------------------------------------------------- commands

export interface CreateInvoice {
  readonly invoiceId: string;
  readonly customer: InvoiceCustomer;
  readonly currency: string;
  /** default: today (UTC) from meta.now */
  readonly date?: string | null;
  readonly dueDate?: string | null;
  readonly memo?: string | null;
  readonly items?: readonly InvoiceLineInput[] | null;
}

/** The PUT body. `currency: null` keeps the currency; `dueDate`/`items` undefined keep, null clears. */
export interface UpdateInvoice {
  readonly invoiceId: string;
  readonly date: string;
  readonly currency: string | null;
  readonly dueDate?: string | null;
  readonly items?: readonly InvoiceLineInput[] | null;
  /** The current register for the codes of the kept lines (items undefined): they are written at today's rates. */
  readonly taxes?: TaxRegister;
}

export interface BookInvoice {
  readonly invoiceId: string;
  /** the gapless number allocated by the infrastructure, see formatInvoiceHandle */
  readonly handle: string;
  /** default: the draft's own date (booking never silently re-dates an invoice) */
  readonly date?: string | null;
  /** The current register for the draft's tax codes: an invoice is booked at these rates. */
  readonly taxes?: TaxRegister;
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
  readonly taxes?: TaxRegister;
}

export interface DuplicateInvoiceResult {
  /** append to the source stream */
  readonly sourceEvents: InvoiceEvent[];
  /** append to the new stream (expected: no stream) */
  readonly newStreamEvents: InvoiceEvent[];
}

// ---------------------------------------------------------------- evolve

export function initialInvoiceState(): InvoiceState {
  return { exists: false, version: 0 };
}

export function evolveInvoice(state: InvoiceState, event: InvoiceEvent): InvoiceState {
  if (event.type === 'InvoiceCreated') {
    const { invoiceId, lines, ...data } = event.data;
    return {
      exists: true,
      id: invoiceId,
      status: 'draft',
      handle: null,
      ...data,
      lines,
      ...totalsOf(lines),
      settlements: [],
      settledAmount: 0,
      creditedAmount: 0,
      updatedAt: null,
      version: 1,
    };
  }
  // Events of a stream always start with InvoiceCreated; anything else on an empty state is ignored.
  if (!state.exists) return state;
  const version = state.version + 1;
  switch (event.type) {
    case 'InvoiceUpdated': {
      const { date, currency, dueDate, lines, updatedAt } = event.data;
      return { ...state, date, currency, dueDate, lines, ...totalsOf(lines), updatedAt, version };
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
        version,
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
        version,
      };
    }
    case 'InvoiceDuplicated':
      return { ...state, version };
    default:
      return state;
  }
}

export const invoiceEvolver: Evolver<InvoiceState, InvoiceEvent> = {
  initialState: initialInvoiceState,
  evolve: evolveInvoice,
};

// ---------------------------------------------------------------- deciders

export function decideCreateInvoice(command: CreateInvoice, state: InvoiceState, meta: CommandMetadata): InvoiceEvent[] {
  if (state.exists) throw new ConflictError('invoice-exists', `invoice ${command.invoiceId} already exists`);
  const date = command.date == null ? today(meta) : validDate(command.date, '/date');
  const dueDate = validDueDate(command.dueDate ?? null, date);
  // Create shares the update rules with an empty invoice: a line id cannot refer to anything yet.
  const lines = buildLines(command.items ?? [], [], meta);
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
  const date = validDate(command.date, '/date');
  const currency = command.currency === null ? invoice.currency : validCurrency(command.currency);
  const dueDate = validDueDate(command.dueDate === undefined ? invoice.dueDate : command.dueDate, date);
  const lines =
    command.items === undefined ? withCurrentTax(invoice, command.taxes ?? new Map()).lines : buildLines(command.items ?? [], invoice.lines, meta);
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
  const invoice = withCurrentTax(draft, command.taxes ?? new Map());
  if (typeof command.handle !== 'string' || command.handle.length === 0) throw new Error('BookInvoice needs an allocated handle');
  // Without a date the draft keeps its own, which create and update already checked against its due date.
  const date = command.date == null ? invoice.date : validDate(command.date, '/date');
  if (invoice.dueDate !== null && invoice.dueDate < date) {
    throw ValidationError.at('/date', `must not be after the invoice's due date ${invoice.dueDate}: book with an earlier date, or update the due date first`);
  }
  const dueDate = invoice.dueDate;
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
  const statusAfter = settlementStatus(BigInt(invoice.totalInclVat), settled);
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
        settlementStatus: statusAfter,
      },
    },
  ];
}

/**
 * reverse false: a new draft of the same type with the same customer,
 * currency, memo and lines (new ids; the tax recorded on the source lines is
 * kept, the caller may re-resolve it with an update). A duplicated credit note
 * stays linked to the invoice it credits.
 * reverse true: a draft credit note for a booked invoice, every figure negated
 * (refused once the invoice's credit notes credit its whole total; booking the
 * credit note checks it against what is still creditable then).
 * Both: date today, and the payment term (dueDate − date) of the source is kept.
 */
export function decideDuplicateInvoice(
  command: DuplicateInvoice,
  state: InvoiceState,
  meta: CommandMetadata,
): DuplicateInvoiceResult {
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
    const current = type === 'invoice' && line.tax.taxCode !== null ? command.taxes?.get(line.tax.taxCode) : undefined;
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
  return [...new Set(invoice.lines.map((line) => line.tax.taxCode).filter((code): code is string => code !== null))];
}

/** `INV-000001` for invoices, `CN-000001` for credit notes (six digits, more when needed). */
export function formatInvoiceHandle(type: InvoiceType, sequenceNumber: number): string {
  if (!Number.isSafeInteger(sequenceNumber) || sequenceNumber < 1) throw new RangeError('sequence numbers start at 1');
  return `${type === 'credit_note' ? 'CN' : 'INV'}-${String(sequenceNumber).padStart(6, '0')}`;
}

// ---------------------------------------------------------------- view

export interface InvoiceLineView {
  readonly id: string;
  readonly sku: string | null;
  readonly title: string | null;
  readonly description: string | null;
  readonly periodStart: string | null;
  readonly periodEnd: string | null;
  readonly quantity: number;
  readonly unitAmount: number;
  readonly amount: number;
  readonly taxAmount: number;
  readonly tax: { readonly taxable: boolean; readonly taxCode: string | null; readonly taxRate: number };
  /**
   * amount: the discount in cents (0 for none); percentage: as given, present
   * only on a percentage discount (the interface does not let it be null).
   */
  readonly discount: { readonly percentage?: number; readonly amount: number };
}

/** Exactly the InvoiceDetail of the README's invoice resource, no other properties. */
export interface InvoiceView {
  readonly id: string;
  readonly handle: string | null;
  readonly memo: string | null;
  readonly status: InvoiceStatus;
  readonly type: InvoiceType;
  readonly settlementStatus: SettlementStatus;
  readonly date: string;
  readonly dueDate: string | null;
  readonly currency: string;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly customer: InvoiceCustomer;
  readonly items: InvoiceLineView[];
  readonly settlements: InvoiceSettlement[];
  readonly totalExclVat: number;
  readonly totalVat: number;
  readonly totalInclVat: number;
  readonly totalDue: number;
}

/**
 * An invoice in a list: the InvoiceDetail without its two collections (`items`
 * and `settlements`), so a page of 100 is bounded whatever the invoices hold;
 * GET /invoices/{id} has them.
 */
export type InvoiceSummaryView = Omit<InvoiceView, 'items' | 'settlements'>;

export function toInvoiceView(invoice: Invoice): InvoiceView {
  const { street1, street2, postalCode, city, county, country, state } = invoice.customer.billingAddress;
  return {
    id: invoice.id,
    handle: invoice.handle,
    memo: invoice.memo,
    status: invoice.status,
    type: invoice.type,
    settlementStatus: settlementStatus(BigInt(invoice.totalInclVat), BigInt(invoice.settledAmount)),
    date: invoice.date,
    dueDate: invoice.dueDate,
    currency: invoice.currency,
    createdAt: invoice.createdAt,
    updatedAt: invoice.updatedAt,
    customer: {
      id: invoice.customer.id,
      handle: invoice.customer.handle,
      name: invoice.customer.name,
      billingAddress: { street1, street2, postalCode, city, county, country, state },
    },
    items: invoice.lines.map((line) => ({
      id: line.id,
      sku: line.sku,
      title: line.title,
      description: line.description,
      periodStart: line.periodStart,
      periodEnd: line.periodEnd,
      quantity: line.quantity,
      unitAmount: line.unitAmount,
      amount: line.amount,
      taxAmount: line.taxAmount,
      tax: { taxable: line.tax.taxable, taxCode: line.tax.taxCode, taxRate: line.tax.taxRate },
      discount: line.discount?.percentage == null ? { amount: line.discountAmount } : { percentage: line.discount.percentage, amount: line.discountAmount },
    })),
    settlements: invoice.settlements.map(({ date, amount, reference, note }) => ({ date, amount, reference, note })),
    totalExclVat: invoice.totalExclVat,
    totalVat: invoice.totalVat,
    totalInclVat: invoice.totalInclVat,
    totalDue: Number(totalDue(BigInt(invoice.totalInclVat), BigInt(invoice.settledAmount))),
  };
}

// ---------------------------------------------------------------- helpers

function existing(state: InvoiceState, invoiceId: string): Invoice {
  if (!state.exists) throw new NotFoundError('Invoice', invoiceId);
  return state;
}

/** Replaces the lines: a given id must name a line of the invoice (and keeps it), no id gets a new one. */
function buildLines(items: readonly InvoiceLineInput[], current: readonly InvoiceLine[], meta: CommandMetadata): InvoiceLine[] {
  if (items.length > MAX_INVOICE_LINES) throw ValidationError.at('/items', `must have at most ${MAX_INVOICE_LINES} lines (has ${items.length})`);
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
    const tax = item.tax ?? NO_TAX;
    const scaled = parseLine({ quantity: item.quantity, unitAmount: item.unitAmount, discount: item.discount, ...tax }, pointer);
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

function validCustomer(customer: InvoiceCustomer): InvoiceCustomer {
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

/**
 * A calendar date YYYY-MM-DD (ISO strings of that shape compare correctly as text).
 * Date objects below only do calendar arithmetic on given values, never read the clock.
 */
function validDate(value: unknown, pointer: string): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const parsed = new Date(`${value}T00:00:00.000Z`);
    if (!Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value)) return value;
  }
  throw ValidationError.at(pointer, 'must be a date (YYYY-MM-DD)');
}

/** Dates are calendar dates in UTC: the service has no notion of the caller's time zone. */
function today(meta: CommandMetadata): string {
  return meta.now.toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
