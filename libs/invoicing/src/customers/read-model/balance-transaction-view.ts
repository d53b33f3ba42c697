import { CustomerBalanceAdjustedData, CustomerBalanceKind } from '../../domain';

/** An entry of a customer's credit-balance ledger as the API returns it (README: Credit balance). */
export interface BalanceTransactionView {
  readonly id: string;
  /** Negative: credit to the customer; positive: credit taken (an amount owed, or applied to an invoice). */
  readonly amount: number;
  readonly currency: string;
  readonly description: string | null;
  readonly kind: CustomerBalanceKind;
  readonly invoiceId: string | null;
  readonly creditNoteId: string | null;
  /** The ledger's sum in the currency after this entry, in the same sign (≤ 0: its negation is the credit available). */
  readonly balanceAfter: number;
  readonly createdAt: string;
}

export function toBalanceTransactionView(entry: CustomerBalanceAdjustedData): BalanceTransactionView {
  return {
    id: entry.entryId,
    amount: entry.amount,
    currency: entry.currency,
    description: entry.description,
    kind: entry.kind,
    invoiceId: entry.invoiceId,
    creditNoteId: entry.creditNoteId,
    balanceAfter: entry.balanceAfter,
    createdAt: entry.createdAt,
  };
}
