import { assertAmountInRange, CommandMetadata, ConflictError, FieldError, foldEvents, isSupportedCurrency, ValidationError } from '@billing/shared-kernel';
import { activeCustomer, Customer, CustomerState } from './customer';
import { CustomerBalanceAdjusted, CustomerBalanceAdjustedData, MAX_BALANCE_DESCRIPTION_LENGTH } from './customer-balance-events';
import { InvoiceEvent, InvoiceSettlementAdded } from './invoice-events';
import { Invoice, invoiceEvolver, InvoiceState } from './invoice';
import { settlementStatus, totalDue } from './invoice-maths';
import { today } from './calendar';

/**
 * A customer's credit balance: a ledger per currency on the customer's own
 * stream, every entry a `CustomerBalanceAdjusted` event.
 *
 * Sign convention (the API's, as Stripe's): an entry's `amount` is negative
 * when it credits the customer (money the service owes them, to be applied to
 * their invoices) and positive when it takes credit away (an amount the
 * customer owes, or credit applied to an invoice). The ledger's sum per
 * currency, `balanceAfter` of its latest entry, is therefore ≤ 0, and the
 * credit the customer can use, `available`, is its negation (≥ 0).
 *
 * The ledger never owes: a positive entry is at most the credit available
 * (409 `customer-balance-insufficient`); what a customer owes beyond it is
 * billed on an invoice. So `available` never goes below zero, and credit
 * applied to invoices never exceeds what was there.
 */

/** The ledger's sum in `currency` (negative = credit). */
export function customerBalance(customer: Customer, currency: string): number {
  return customer.balances?.[currency] ?? 0;
}

/** The credit the customer can use in `currency` (≥ 0). */
export function availableCredit(customer: Customer, currency: string): number {
  return Math.max(0, -customerBalance(customer, currency));
}

function entry(
  customer: Customer,
  fields: Omit<CustomerBalanceAdjustedData, 'customerId' | 'balanceAfter' | 'createdAt'>,
  meta: CommandMetadata,
  pointer: string,
): CustomerBalanceAdjusted {
  const balanceAfter = Number(assertAmountInRange(BigInt(customerBalance(customer, fields.currency)) + BigInt(fields.amount), pointer));
  return {
    type: 'CustomerBalanceAdjusted',
    schemaVersion: 1,
    data: { customerId: customer.id, ...fields, balanceAfter, createdAt: meta.now.toISOString() },
  };
}

// ---------------------------------------------------------------- adjustments

export interface AdjustCustomerBalance {
  readonly customerId: string;
  readonly entryId: string;
  readonly amount: unknown;
  readonly currency: unknown;
  readonly description?: unknown;
}

/**
 * A manual entry (POST /customers/{id}/balance-transactions): a non-zero
 * integer amount in a supported currency (every invalid member a 422 at its
 * pointer, all at once); an archived customer's ledger takes none (409
 * customer-archived); a positive amount beyond the credit available is a 409
 * `customer-balance-insufficient`.
 */
export function decideAdjustCustomerBalance(command: AdjustCustomerBalance, state: CustomerState, meta: CommandMetadata): CustomerBalanceAdjusted[] {
  const errors: FieldError[] = [];
  const { amount, currency, description } = command;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount === 0) {
    errors.push({ pointer: '/amount', detail: 'must be a non-zero integer in minor units (negative: credit to the customer; positive: an amount owed)' });
  }
  const code = typeof currency === 'string' ? currency.toLowerCase() : null;
  if (!isSupportedCurrency(code)) errors.push({ pointer: '/currency', detail: 'must be a supported ISO 4217 currency code' });
  if (description != null && (typeof description !== 'string' || description.length > MAX_BALANCE_DESCRIPTION_LENGTH)) {
    errors.push({ pointer: '/description', detail: `must be a string of at most ${MAX_BALANCE_DESCRIPTION_LENGTH} characters or null` });
  }
  if (errors.length > 0) throw new ValidationError(errors.length === 1 ? errors[0].detail : 'The balance transaction is invalid.', errors);
  const customer = activeCustomer(state, command.customerId);
  const value = Number(assertAmountInRange(BigInt(amount as number), '/amount'));
  const upper = code!.toUpperCase();
  const available = availableCredit(customer, upper);
  if (value > available) {
    throw new ConflictError(
      'customer-balance-insufficient',
      `customer ${customer.handle} has ${available} ${upper} of credit available: an entry may take at most that (bill what is owed beyond it on an invoice)`,
    );
  }
  return [
    entry(
      customer,
      {
        entryId: command.entryId,
        amount: value,
        currency: upper,
        description: (description as string | null | undefined) ?? null,
        kind: 'adjustment',
        invoiceId: null,
        creditNoteId: null,
      },
      meta,
      '/amount',
    ),
  ];
}

// ---------------------------------------------------------------- invoices

/** What a booking, a void or a credit note appends to the invoice and to the customer, in one transaction. */
export interface CustomerCreditMovement {
  readonly invoiceEvents: InvoiceSettlementAdded[];
  readonly customerEvents: CustomerBalanceAdjusted[];
}

const NO_MOVEMENT: CustomerCreditMovement = { invoiceEvents: [], customerEvents: [] };

/** The credit an invoice took from its customer's balance and has not given back. */
export function creditAppliedTo(invoice: Invoice): number {
  return invoice.creditApplied ?? 0;
}

/**
 * At booking: the customer's available credit in the invoice's currency is
 * applied to the invoice being booked (`booking`: the events booking the
 * `draft`), up to what is due on it. A settlement on the invoice
 * (`balanceEntryId`: the entry) and an `invoice_applied` entry of the same
 * amount on the customer. Only in the booking itself (never to an invoice
 * booked before: credit is applied once per invoice), and nothing when the
 * invoice is not an invoice made out to this customer record, when nothing is
 * due or no credit is there. An invoice booked with a negative total goes the
 * other way: creditNegativeTotal.
 */
export function decideApplyCustomerCredit(
  command: { readonly entryId: string; readonly booking: readonly InvoiceEvent[] },
  draft: InvoiceState,
  state: CustomerState,
  meta: CommandMetadata,
): CustomerCreditMovement {
  if (draft.status !== 'draft' || !command.booking.some((event) => event.type === 'InvoiceBooked')) return NO_MOVEMENT;
  const invoice = foldEvents(invoiceEvolver, command.booking, draft);
  if (invoice.status !== 'booked' || invoice.type !== 'invoice' || invoice.customerId == null) return NO_MOVEMENT;
  if (state.status === 'none' || state.id !== invoice.customerId) return NO_MOVEMENT;
  const due = Number(totalDue(BigInt(invoice.totalInclVat), BigInt(invoice.settledAmount)));
  if (due < 0) return creditNegativeTotal(invoice, state, -due, command.entryId, meta);
  const applied = Math.min(due, availableCredit(state, invoice.currency));
  if (applied <= 0) return NO_MOVEMENT;
  const description = `Applied to invoice ${invoice.handle}`;
  return {
    invoiceEvents: [balanceSettlement(invoice, applied, invoice.date, command.entryId, 'Credit balance applied', meta)],
    customerEvents: [
      entry(
        state,
        {
          entryId: command.entryId,
          amount: applied,
          currency: invoice.currency,
          description,
          kind: 'invoice_applied',
          invoiceId: invoice.id,
          creditNoteId: null,
        },
        meta,
        '/amount',
      ),
    ],
  };
}

/**
 * A negative total (a subscription's downgrade or cancel-now invoice credits
 * more than it bills) is owed to the customer: it goes to their balance (an
 * `invoice_credit` entry, negative) and that move settles the invoice (a
 * settlement of the negative total, `reference` the entry's id), like a credit
 * note's creditAmount: the credit shows once, on the balance, not also as a
 * negative total due. It is no credit taken from the balance (not
 * `creditApplied`, no `balanceEntryId`), so a void never gives it back: like
 * any invoice with a settlement, it is credited instead.
 */
function creditNegativeTotal(invoice: Invoice, state: Customer, credit: number, entryId: string, meta: CommandMetadata): CustomerCreditMovement {
  const { id, handle, currency, date } = invoice;
  return {
    invoiceEvents: [balanceSettlement(invoice, -credit, date, entryId, 'Credited to the customer balance', meta, false)],
    customerEvents: [
      entry(
        state,
        { entryId, amount: -credit, currency, description: `Credit of invoice ${handle}`, kind: 'invoice_credit', invoiceId: id, creditNoteId: null },
        meta,
        '/amount',
      ),
    ],
  };
}

/**
 * On a void: the credit the invoice took goes back to the customer's balance.
 * A negative settlement on the invoice (its credit applied back to 0) and a
 * `void_returned` entry on the customer. Nothing when it took none.
 */
export function decideReturnCustomerCredit(
  command: { readonly entryId: string },
  invoice: Invoice,
  state: CustomerState,
  meta: CommandMetadata,
): CustomerCreditMovement {
  const taken = creditAppliedTo(invoice);
  if (taken === 0) return NO_MOVEMENT;
  if (state.status === 'none' || state.id !== invoice.customerId) {
    throw new Error(`invoice ${invoice.id} took credit from customer ${invoice.customerId}, whose stream was not loaded`);
  }
  const description = `Returned by void of invoice ${invoice.handle}`;
  return {
    invoiceEvents: [balanceSettlement(invoice, -taken, today(meta), command.entryId, 'Credit balance returned (void)', meta)],
    customerEvents: [
      entry(
        state,
        { entryId: command.entryId, amount: -taken, currency: invoice.currency, description, kind: 'void_returned', invoiceId: invoice.id, creditNoteId: null },
        meta,
        '/amount',
      ),
    ],
  };
}

/**
 * A credit note's `creditAmount` credits the customer of the invoice it
 * credits: a `credit_note` entry (negative). Only for an invoice made out to
 * a customer record; an inline one-off customer has no ledger (the amount is
 * recorded on the credit note only).
 */
export function decideCreditNoteBalanceEntry(
  command: { readonly entryId: string; readonly creditNoteId: string; readonly creditNoteHandle: string | null; readonly creditAmount: number },
  invoice: Invoice,
  state: CustomerState,
  meta: CommandMetadata,
): CustomerBalanceAdjusted[] {
  if (command.creditAmount <= 0 || invoice.customerId == null || state.status === 'none' || state.id !== invoice.customerId) return [];
  return [
    entry(
      state,
      {
        entryId: command.entryId,
        amount: -command.creditAmount,
        currency: invoice.currency,
        description: `Credit note ${command.creditNoteHandle ?? command.creditNoteId} for invoice ${invoice.handle}`,
        kind: 'credit_note',
        invoiceId: invoice.id,
        creditNoteId: command.creditNoteId,
      },
      meta,
      '/creditAmount',
    ),
  ];
}

/**
 * A settlement from (or back to) the customer's balance: its reference is the balance entry's id; `taken`: credit
 * the invoice took from the balance or gave back (`balanceEntryId`, counted in its creditApplied).
 */
function balanceSettlement(
  invoice: Invoice,
  amount: number,
  date: string,
  entryId: string,
  note: string,
  meta: CommandMetadata,
  taken = true,
): InvoiceSettlementAdded {
  const settled = assertAmountInRange(BigInt(invoice.settledAmount) + BigInt(amount), '/amount');
  return {
    type: 'InvoiceSettlementAdded',
    schemaVersion: 1,
    data: {
      invoiceId: invoice.id,
      date,
      amount,
      reference: entryId,
      note,
      addedAt: meta.now.toISOString(),
      settlementStatus: settlementStatus(BigInt(invoice.totalInclVat), settled),
      ...(taken ? { balanceEntryId: entryId } : {}),
    },
  };
}
