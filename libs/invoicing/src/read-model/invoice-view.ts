import { DomainError } from '@billing/shared-kernel';
import {
  CreditNoteDisposition,
  Invoice,
  InvoiceCustomer,
  InvoiceLine,
  InvoiceSettlement,
  InvoiceState,
  InvoiceStatus,
  InvoiceType,
  SettlementStatus,
  settlementStatus,
  TaxRegister,
  totalDue,
  withCurrentTax,
} from '../domain';

/**
 * The invoice as the API returns it: the read side's rendering of the
 * aggregate's state (the domain knows nothing of it). The read model stores
 * it; webhook notifications carry it.
 */

/** A line as stored, less what only the state needs, plus the rendered tax and discount. */
export interface InvoiceLineView extends Pick<
  InvoiceLine,
  'id' | 'sku' | 'title' | 'description' | 'periodStart' | 'periodEnd' | 'quantity' | 'unitAmount' | 'amount' | 'taxAmount'
> {
  readonly tax: { readonly taxable: boolean; readonly taxCode: string | null; readonly taxRate: number };
  /**
   * amount: the discount in cents (0 for none); percentage: as given, present
   * only on a percentage discount (the OpenAPI document does not let it be null).
   */
  readonly discount: { readonly percentage?: number; readonly amount: number };
  /** The price the line bills, when it names one (a coupon's appliesTo looks at its product). */
  readonly priceId?: string;
}

/** A coupon on a draft (and then booked) invoice, as the invoice shows it: its terms in the invoice's currency. */
export interface InvoiceDiscountView {
  readonly id: string;
  readonly couponId: string;
  readonly promotionCodeId: string | null;
  readonly name: string;
  readonly percentOff: number | null;
  readonly amountOff: number | null;
  readonly appliesTo: { readonly productIds: readonly string[] } | null;
}

/** Exactly the InvoiceDetail of the README's invoice resource (INTERFACE.md's fields and `uncollectible`), no other properties. */
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
  /** The coupons redeemed on it while a draft, applied to its lines in this order. */
  readonly discounts: InvoiceDiscountView[];
  readonly settlements: InvoiceSettlement[];
  readonly totalExclVat: number;
  readonly totalVat: number;
  readonly totalInclVat: number;
  readonly totalDue: number;
  /** Marked uncollectible and not settled since: dunning stopped, still payable. */
  readonly uncollectible: boolean;
  /** On an invoice: what its booked credit notes credit together (0 on credit notes). */
  readonly creditedAmount: number;
  /** On a credit note issued with a disposition: where its money goes; null otherwise. */
  readonly creditNote: CreditNoteDisposition | null;
  /** Credit applied from the customer's balance at booking (part of what is settled; 0 when none, or once a void returned it). */
  readonly creditApplied: number;
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
      email: invoice.customer.email ?? null,
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
      // With a coupon's part the discount is no longer the line's own percentage: the amount alone.
      discount:
        line.discount?.percentage == null || line.couponAmount
          ? { amount: line.discountAmount }
          : { percentage: line.discount.percentage, amount: line.discountAmount },
      ...(line.priceId ? { priceId: line.priceId } : {}),
    })),
    discounts: (invoice.discounts ?? []).map((discount) => ({
      id: discount.id,
      couponId: discount.couponId,
      promotionCodeId: discount.promotionCodeId,
      name: discount.name,
      percentOff: discount.percentOff,
      amountOff: discount.amountOff,
      appliesTo: discount.productIds === null ? null : { productIds: discount.productIds },
    })),
    settlements: invoice.settlements.map(({ date, amount, reference, note }) => ({ date, amount, reference, note })),
    totalExclVat: invoice.totalExclVat,
    totalVat: invoice.totalVat,
    totalInclVat: invoice.totalInclVat,
    // A void invoice is owed by no one: nothing is due, whatever its total.
    totalDue: invoice.status === 'void' ? 0 : Number(totalDue(BigInt(invoice.totalInclVat), BigInt(invoice.settledAmount))),
    uncollectible: invoice.uncollectible === true,
    creditedAmount: invoice.creditedAmount,
    creditNote: invoice.creditNote && { ...invoice.creditNote },
    creditApplied: invoice.creditApplied ?? 0,
  };
}

/** The invoice's resource view, null before it exists: the `invoice` stream's view for notifications. */
export function invoiceViewOf(state: InvoiceState): InvoiceView | null {
  return state.status === 'none' ? null : toInvoiceView(state);
}

/**
 * A draft invoice at its codes' current rates (the register of the codes its
 * lines name), anything else as folded: what the read model stores and what
 * a write answers.
 */
export function renderInvoiceView(invoice: Invoice, register: TaxRegister | undefined): InvoiceView {
  if (!register || invoice.status !== 'draft' || invoice.type !== 'invoice') return toInvoiceView(invoice);
  try {
    return toInvoiceView(withCurrentTax(invoice, register));
  } catch (error) {
    // A higher rate pushing a total past ±(2^53 − 1): show the draft as written; booking it reports the 422.
    if (error instanceof DomainError) return toInvoiceView(invoice);
    throw error;
  }
}
