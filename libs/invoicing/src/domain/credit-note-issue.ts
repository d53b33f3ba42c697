import {
  CommandMetadata,
  ConflictError,
  NotFoundError,
  QUANTITY_SCALE,
  ValidationError,
  divideRoundingHalfAwayFromZero,
  foldEvents,
  scaledToNumber,
} from '@billing/shared-kernel';
import { today } from './calendar';
import { ApplyCreditNoteResult, creditableAmount, decideApplyCreditNote } from './credit-notes';
import { CREDIT_NOTE_REASONS, CreditNoteReason, CreditedLine, InvoiceEvent, InvoiceLine, InvoiceSettlementAdded } from './invoice-events';
import { Invoice, InvoiceState, invoiceEvolver } from './invoice';
import { parseAmount, parseQuantity, settlementStatus } from './invoice-maths';
import { totalsOf } from './invoice-totals';

/**
 * Issuing a credit note for a booked invoice with a disposition, in one
 * decision: the credit note is created and booked at once (its number
 * allocated by the infrastructure), applied to the invoice
 * (decideApplyCreditNote: the credit limit and a settlement on each), and
 * what it credits is split:
 * - first it reduces what is still due on the invoice (`dueReducedAmount`,
 *   up to the invoice's totalDue);
 * - the rest must be allocated exactly to `refundAmount` (made by the
 *   payments context, which reacts to CreditNoteIssued), `creditAmount`
 *   (credit to the customer) and `outOfBandAmount` (settled outside the
 *   service). Credit and out-of-band money leaves the invoice: a negative
 *   settlement each, so a paid invoice is settled again once the refund is
 *   made.
 *
 * Rounding (the one place for credit notes, half away from zero through the
 * shared kernel, cumulatively: cumulativeShare): a line credited by quantity
 * credits round(line amount × quantities credited with this one / line
 * quantity) less round(line amount × quantities credited before / line
 * quantity); its tax likewise the line tax's share of the amounts credited
 * before and with this one. The credit that exhausts what is left of a line
 * takes exactly what is left of its amount and tax, so a line credited in
 * pieces credits its figures to the cent and never more.
 * A plain `amount` (tax included) is split over the invoice's tax treatments
 * in proportion to their totals (cumulatively rounded, so the parts add up to
 * the amount), and each part's tax is its treatment's share of it.
 */

export interface CreditNoteLineRequest {
  readonly lineId?: unknown;
  readonly quantity?: unknown;
  readonly amount?: unknown;
}

export interface IssueCreditNote {
  readonly creditNoteId: string;
  readonly invoiceId: string;
  /** the gapless credit-note number allocated by the infrastructure */
  readonly handle: string;
  readonly lines?: readonly CreditNoteLineRequest[] | null;
  /** tax included */
  readonly amount?: unknown;
  readonly reason: unknown;
  readonly memo?: string | null;
  readonly refundAmount?: unknown;
  readonly creditAmount?: unknown;
  readonly outOfBandAmount?: unknown;
  /** What direct refunds of the invoice's payments take that its settlements do not show yet (the payments context's answer); absent: 0. */
  readonly directRefundsUnderway?: number;
}

export type IssueCreditNoteResult = ApplyCreditNoteResult;

/**
 * Rules: the invoice exists (404) and is a booked invoice (409
 * `invoice-not-booked`, `credit-note-cannot-be-reversed`); everything else is
 * a 422 with a pointer: exactly one of `lines` and `amount`, a known reason,
 * each line credit within what is left of its line (`credit-exceeds-line`),
 * the total within what is left creditable on the invoice
 * (`credit-exceeds-creditable`), `refundAmount` within what the payments
 * context was paid and is not already refunding (`refund-exceeds-paid`), and
 * the three amounts adding up to the part that does not reduce what is due
 * (`credit-note-unallocated`).
 */
export function decideIssueCreditNote(command: IssueCreditNote, invoiceState: InvoiceState, meta: CommandMetadata): IssueCreditNoteResult {
  if (invoiceState.status === 'none') throw new NotFoundError('Invoice', command.invoiceId);
  const invoice = invoiceState;
  if (invoice.type === 'credit_note') throw new ConflictError('credit-note-cannot-be-reversed', 'a credit note cannot be credited');
  if (invoice.status !== 'booked') throw new ConflictError('invoice-not-booked', `only booked invoices can be credited: ${invoice.id} is ${invoice.status}`);
  const reason = validReason(command.reason);
  const hasLines = command.lines != null;
  const hasAmount = command.amount != null;
  if (hasLines && hasAmount) throw ValidationError.at('/amount', 'give either lines or amount, not both');
  if (!hasLines && !hasAmount) throw ValidationError.at('/amount', 'give either lines (what to credit of which lines) or amount (tax included)');
  const amounts: Disposition = {
    refundAmount: nonNegative(command.refundAmount, '/refundAmount'),
    creditAmount: nonNegative(command.creditAmount, '/creditAmount'),
    outOfBandAmount: nonNegative(command.outOfBandAmount, '/outOfBandAmount'),
  };
  const { lines, creditedLines } = hasLines ? creditedLinesOf(invoice, command.lines!, meta) : amountLines(invoice, command.amount, meta);
  const dueReducedAmount = allocated(command, invoice, -totalsOf(lines).totalInclVat, amounts, hasLines ? '/lines' : '/amount');
  const issuedEvents = creditNoteIssued(command, invoice, lines, { reason, dueReducedAmount, ...amounts }, meta);
  const creditNote = foldEvents(invoiceEvolver, issuedEvents);
  const application = decideApplyCreditNote(
    { creditNoteId: command.creditNoteId, invoiceId: invoice.id, refundToMake: amounts.refundAmount, creditedLines },
    invoice,
    creditNote,
    meta,
  );
  const leaving = moneyLeaving(command.handle, foldEvents(invoiceEvolver, application.invoiceEvents, invoice) as Invoice, amounts, meta);
  return {
    invoiceEvents: [...application.invoiceEvents, ...leaving],
    creditNoteEvents: [...issuedEvents, ...application.creditNoteEvents],
  };
}

/** Where a credit note's money goes, besides reducing what is still due. */
interface Disposition {
  readonly refundAmount: number;
  readonly creditAmount: number;
  readonly outOfBandAmount: number;
}

/**
 * The part of the credit note's `total` that reduces what is still due, once the total is within what is left
 * creditable, the refund within what the payments paid, and the disposition adds up to the rest.
 */
function allocated(command: IssueCreditNote, invoice: Invoice, total: number, amounts: Disposition, totalPointer: string): number {
  const { refundAmount, creditAmount, outOfBandAmount } = amounts;
  const creditable = creditableAmount(invoice);
  if (total > creditable) {
    throw ValidationError.at(
      totalPointer,
      `credits ${total} but only ${Math.max(creditable, 0)} is left creditable on ${invoice.handle} (its credit notes never exceed its total ${invoice.totalInclVat}; minor units of ${invoice.currency})`,
      'credit-exceeds-creditable',
    );
  }
  const refundable = refundableThroughPayments(invoice) - (command.directRefundsUnderway ?? 0);
  if (refundAmount > refundable) {
    throw ValidationError.at(
      '/refundAmount',
      `must not exceed ${Math.max(refundable, 0)}: what the invoice's payments paid and is not refunded or being refunded already`,
      'refund-exceeds-paid',
    );
  }
  const due = Math.max(0, invoice.totalInclVat - invoice.settledAmount);
  const dueReducedAmount = Math.min(total, due);
  const rest = total - dueReducedAmount;
  if (refundAmount + creditAmount + outOfBandAmount !== rest) {
    const detail =
      `must add up to ${rest} together: the credit note credits ${total}, of which ${dueReducedAmount} reduces what is still due; ` +
      `refundAmount + creditAmount + outOfBandAmount is ${refundAmount + creditAmount + outOfBandAmount}`;
    throw new ValidationError(
      `The credit note's amounts do not add up: ${detail}.`,
      ['/refundAmount', '/creditAmount', '/outOfBandAmount'].map((pointer) => ({ pointer, detail })),
      'credit-note-unallocated',
    );
  }
  return dueReducedAmount;
}

/** The credit note's own stream: created and booked at once (dated today), and issued with its disposition. */
function creditNoteIssued(
  command: IssueCreditNote,
  invoice: Invoice,
  lines: readonly InvoiceLine[],
  disposition: Disposition & { readonly reason: CreditNoteReason; readonly dueReducedAmount: number },
  meta: CommandMetadata,
): InvoiceEvent[] {
  const at = meta.now.toISOString();
  const date = today(meta);
  const { totalExclVat, totalVat, totalInclVat } = totalsOf(lines);
  const created: InvoiceEvent = {
    type: 'InvoiceCreated',
    schemaVersion: 1,
    data: {
      invoiceId: command.creditNoteId,
      type: 'credit_note',
      customer: invoice.customer,
      currency: invoice.currency,
      date,
      dueDate: null,
      memo: command.memo ?? null,
      lines,
      creditedInvoiceId: invoice.id,
      duplicatedFromInvoiceId: null,
      createdAt: at,
    },
  };
  const booked: InvoiceEvent = {
    type: 'InvoiceBooked',
    schemaVersion: 1,
    data: {
      invoiceId: command.creditNoteId,
      type: 'credit_note',
      handle: command.handle,
      date,
      dueDate: null,
      lines,
      totalExclVat,
      totalVat,
      totalInclVat,
      creditedInvoiceId: invoice.id,
      bookedAt: at,
    },
  };
  const { reason, dueReducedAmount, refundAmount, creditAmount, outOfBandAmount } = disposition;
  const issued: InvoiceEvent = {
    type: 'CreditNoteIssued',
    schemaVersion: 1,
    data: { creditNoteId: command.creditNoteId, invoiceId: invoice.id, reason, dueReducedAmount, refundAmount, creditAmount, outOfBandAmount, issuedAt: at },
  };
  return [created, booked, issued];
}

/** Money that leaves the invoice other than by a refund: credit to the customer, and what was settled out of band. */
function moneyLeaving(handle: string, applied: Invoice, { creditAmount, outOfBandAmount }: Disposition, meta: CommandMetadata): InvoiceSettlementAdded[] {
  let after = applied;
  const leaving: InvoiceSettlementAdded[] = [];
  for (const [amount, note] of [
    [creditAmount, `credit to the customer from ${handle}`],
    [outOfBandAmount, `settled out of band by ${handle}`],
  ] as const) {
    if (amount === 0) continue;
    const settled = after.settledAmount - amount;
    const event: InvoiceSettlementAdded = {
      type: 'InvoiceSettlementAdded',
      schemaVersion: 1,
      data: {
        invoiceId: applied.id,
        date: today(meta),
        amount: -amount,
        reference: handle,
        note,
        addedAt: meta.now.toISOString(),
        settlementStatus: settlementStatus(BigInt(applied.totalInclVat), BigInt(settled)),
      },
    };
    leaving.push(event);
    after = foldEvents(invoiceEvolver, [event], after) as Invoice;
  }
  return leaving;
}

/** What a credit note may still refund: what the payments context was paid, less refunds made and refunds credit notes still await. */
export function refundableThroughPayments(invoice: Invoice): number {
  return invoice.paidThroughPayments - invoice.creditNoteRefundsOutstanding;
}

function validReason(value: unknown): CreditNoteReason {
  if (typeof value !== 'string' || !(CREDIT_NOTE_REASONS as readonly string[]).includes(value)) {
    throw ValidationError.at('/reason', `must be one of ${CREDIT_NOTE_REASONS.join(', ')}`);
  }
  return value as CreditNoteReason;
}

function nonNegative(value: unknown, pointer: string): number {
  if (value == null) return 0;
  const amount = parseAmount(value, pointer);
  if (amount < 0n) throw ValidationError.at(pointer, 'must not be negative');
  return Number(amount);
}

function positive(value: unknown, pointer: string): bigint {
  const amount = parseAmount(value, pointer);
  if (amount < 1n) throw ValidationError.at(pointer, 'must be at least 1');
  return amount;
}

/** The credit lines for `lines`: one per line named, quantity 1 at minus the amount it credits, the line's tax. */
function creditedLinesOf(
  invoice: Invoice,
  requests: readonly CreditNoteLineRequest[],
  meta: CommandMetadata,
): { lines: InvoiceLine[]; creditedLines: CreditedLine[] } {
  if (!Array.isArray(requests) || requests.length === 0) throw ValidationError.at('/lines', 'must name at least one line');
  const seen = new Set<string>();
  const credited = requests.map((request, i): CreditedLine => {
    const pointer = `/lines/${i}`;
    const line = invoice.lines.find((candidate) => candidate.id === request?.lineId);
    if (!line) throw ValidationError.at(`${pointer}/lineId`, 'is not a line of this invoice');
    if (seen.has(line.id)) throw ValidationError.at(`${pointer}/lineId`, 'names a line twice');
    seen.add(line.id);
    if ((request.quantity == null) === (request.amount == null)) throw ValidationError.at(pointer, 'give either quantity or amount');
    const done = invoice.lineCredits[line.id] ?? { quantity: 0, amount: 0, taxAmount: 0 };
    const amountLeft = BigInt(line.amount - done.amount);
    const taxLeft = BigInt(line.taxAmount - done.taxAmount);
    if (line.amount <= 0 || amountLeft <= 0n) throw ValidationError.at(`${pointer}/lineId`, 'has nothing left to credit', 'credit-exceeds-line');
    let amount: bigint;
    let quantity = 0n;
    if (request.quantity != null) {
      quantity = parseQuantity(request.quantity as number, `${pointer}/quantity`);
      const whole = parseQuantity(line.quantity, `${pointer}/quantity`);
      const left = whole - parseQuantity(done.quantity, `${pointer}/quantity`);
      if (quantity <= 0n) throw ValidationError.at(`${pointer}/quantity`, 'must be more than 0');
      if (quantity > left) {
        throw ValidationError.at(
          `${pointer}/quantity`,
          `must not exceed ${scaledToNumber(left, QUANTITY_SCALE)}, what is left of the line's quantity`,
          'credit-exceeds-line',
        );
      }
      // Cumulative: the amount of all the line's quantity credits so far and with this one, less what they credited, so pieces add up exactly.
      const before = whole - left;
      const share = cumulativeShare(BigInt(line.amount), before, before + quantity, whole);
      amount = quantity === left || share > amountLeft ? amountLeft : share;
      if (amount === 0n) throw ValidationError.at(`${pointer}/quantity`, 'credits nothing: its share of the line is less than half a cent');
    } else {
      amount = positive(request.amount, `${pointer}/amount`);
      if (amount > amountLeft)
        throw ValidationError.at(`${pointer}/amount`, `must not exceed ${amountLeft}, what is left of the line's amount`, 'credit-exceeds-line');
    }
    const creditedBefore = BigInt(done.amount);
    const share = cumulativeShare(BigInt(line.taxAmount), creditedBefore, creditedBefore + amount, BigInt(line.amount));
    const taxAmount = amount === amountLeft || abs(share) > abs(taxLeft) ? taxLeft : share;
    return { lineId: line.id, quantity: scaledToNumber(quantity, QUANTITY_SCALE), amount: Number(amount), taxAmount: Number(taxAmount) };
  });
  const lines = credited.map((credit) => {
    const line = invoice.lines.find((candidate) => candidate.id === credit.lineId)!;
    return creditLine(meta.newId(), line, line.tax, credit.amount, credit.taxAmount);
  });
  return { lines, creditedLines: credited };
}

/**
 * The credit lines for a plain `amount` (tax included): one per tax treatment
 * of the invoice, the amount split in proportion to the treatments' totals.
 */
function amountLines(invoice: Invoice, value: unknown, meta: CommandMetadata): { lines: InvoiceLine[]; creditedLines: CreditedLine[] } {
  const amount = positive(value, '/amount');
  const groups = new Map<string, { line: InvoiceLine; total: bigint; tax: bigint }>();
  for (const line of invoice.lines) {
    const key = JSON.stringify([line.tax.taxCode, line.tax.taxable, line.tax.taxRate]);
    const group = groups.get(key) ?? { line, total: 0n, tax: 0n };
    groups.set(key, { line: group.line, total: group.total + BigInt(line.amount + line.taxAmount), tax: group.tax + BigInt(line.taxAmount) });
  }
  const treatments = [...groups.values()].filter((group) => group.total > 0n);
  const whole = treatments.reduce((sum, group) => sum + group.total, 0n);
  if (whole <= 0n) throw ValidationError.at('/amount', `credits ${amount} but nothing is left creditable on ${invoice.handle}`, 'credit-exceeds-creditable');
  let cumulative = 0n;
  let given = 0n;
  const lines: InvoiceLine[] = [];
  for (const group of treatments) {
    cumulative += group.total;
    const upTo = divideRoundingHalfAwayFromZero(amount * cumulative, whole);
    const part = upTo - given;
    given = upTo;
    if (part === 0n) continue;
    const tax = divideRoundingHalfAwayFromZero(part * group.tax, group.total);
    lines.push(
      creditLine(
        meta.newId(),
        { ...group.line, title: 'Credit', description: null, sku: null, periodStart: null, periodEnd: null },
        group.line.tax,
        Number(part - tax),
        Number(tax),
      ),
    );
  }
  return { lines, creditedLines: [] };
}

/** A credit note line: quantity 1 at minus the amount credited (amount = unitAmount × quantity, as every line), its tax negated. */
function creditLine(id: string, from: InvoiceLine, tax: InvoiceLine['tax'], amount: number, taxAmount: number): InvoiceLine {
  return {
    id,
    sku: from.sku,
    title: from.title,
    description: from.description,
    periodStart: from.periodStart,
    periodEnd: from.periodEnd,
    quantity: 1,
    unitAmount: negate(amount),
    discount: null,
    tax,
    discountAmount: 0,
    amount: negate(amount),
    taxAmount: negate(taxAmount),
  };
}

/** The share of `total` that the part from `from` to `to` of `whole` carries, rounded cumulatively (the one rounding of line credits). */
function cumulativeShare(total: bigint, from: bigint, to: bigint, whole: bigint): bigint {
  return divideRoundingHalfAwayFromZero(total * to, whole) - divideRoundingHalfAwayFromZero(total * from, whole);
}

/** Minus the figure, never −0 (which JSON and deep equality tell apart from 0). */
function negate(value: number): number {
  return value === 0 ? 0 : -value;
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}
