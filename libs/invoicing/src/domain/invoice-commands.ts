import { Address, InvoiceCustomer, InvoiceDiscount, InvoiceEvent, InvoiceType } from './invoice-events';
import type { Invoice } from './invoice';
import { TaxRegister } from './tax-code';

/** The commands of the Invoice aggregate (decided in invoice-decisions), and what their callers derive from them. */

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
  /** The price the line bills (optional): its product decides whether an appliesTo coupon discounts it. */
  readonly priceId?: string | null;
  /** The product of priceId, resolved by the handler (never given by a caller). */
  readonly productId?: string | null;
}

/** The customer as a command gives it: the address and each of its members may be absent (stored as null). */
export interface CustomerInput {
  readonly id: string;
  /** Required, but may be null. */
  readonly handle: string | null;
  /** Required, but may be null. */
  readonly name: string | null;
  /** Optional: absent or null, none. */
  readonly email?: string | null;
  readonly billingAddress?: Partial<Address> | null;
}

export interface CreateInvoice {
  readonly invoiceId: string;
  /** Inline (a one-off customer), or the snapshot of the customer record `customerId` names. */
  readonly customer: CustomerInput;
  /** The customer record the invoice is made out to; absent: the inline customer has no record. */
  readonly customerId?: string | null;
  readonly currency: string;
  /** default: today (UTC) from meta.now */
  readonly date?: string | null;
  readonly dueDate?: string | null;
  readonly memo?: string | null;
  readonly items?: readonly RequestedLine[] | null;
  /** The register's entries for the codes the items name: a code it lacks is unknown (422 unknown-tax-code). */
  readonly taxes: TaxRegister;
  /** Coupons redeemed on the draft by the handler, applied to its lines in this order. */
  readonly discounts?: readonly InvoiceDiscount[];
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
  /** The snapshot of the customer record the draft is made out to, as it is now (absent: no record, nothing to refresh). */
  readonly customer?: InvoiceCustomer;
  /** The draft's coupons from now on (those it keeps and those the handler redeemed), in order; absent: it keeps its own. */
  readonly discounts?: readonly InvoiceDiscount[];
}

export interface BookInvoice {
  readonly invoiceId: string;
  /** the gapless number allocated by the infrastructure, see formatInvoiceHandle */
  readonly handle: string;
  /** default: the draft's own date (booking never silently re-dates an invoice) */
  readonly date?: string | null;
  /** The current register for the draft's tax codes: an invoice is booked at these rates. */
  readonly taxes: TaxRegister;
  /**
   * The customer record the draft is made out to, as it is at booking: its
   * snapshot is frozen into the booked invoice, and its payment terms date an
   * invoice that has no due date of its own. Absent: no record.
   */
  readonly customer?: { readonly snapshot: InvoiceCustomer; readonly paymentTermsDays: number | null };
  /**
   * A client's booking (PUT /invoices/{id}/book), which refuses an invoice whose total is negative. Absent: the billing
   * engine's booking of a subscription invoice, whose negative total (a proration credit) moves to the credit balance.
   */
  readonly manual?: boolean;
}

export interface AddSettlement {
  readonly invoiceId: string;
  readonly date: string;
  readonly amount: number;
  readonly reference?: string | null;
  readonly note?: string | null;
  /** Set by the payments context: the payment this settlement records (its charge, or a refund of it). */
  readonly paymentId?: string | null;
  /** Set by the payments context on a refund made for a credit note: that credit note. */
  readonly refundedCreditNoteId?: string | null;
}

export interface VoidInvoice {
  readonly invoiceId: string;
  /** The payments context's answer: a payment of it is under way or succeeded (its settlement may still be on its way). */
  readonly paymentTaken: boolean;
}

export interface MarkInvoiceUncollectible {
  readonly invoiceId: string;
}

export interface RotateHostedLink {
  readonly invoiceId: string;
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

function uniqueCodes(codes: readonly (string | null | undefined)[]): string[] {
  return [...new Set(codes.filter((code): code is string => typeof code === 'string'))];
}
