import { DomainEvent } from '@billing/shared-kernel';

/** The event of a customer's credit-balance ledger (the rules: customer-balance.ts). */

export const CUSTOMER_BALANCE_KINDS = ['adjustment', 'invoice_applied', 'credit_note', 'void_returned', 'invoice_credit'] as const;
/**
 * - `adjustment`: POST /customers/{id}/balance-transactions;
 * - `invoice_applied`: credit applied to an invoice when it was booked (positive);
 * - `credit_note`: a credit note's `creditAmount` (negative);
 * - `void_returned`: the credit a voided invoice had taken, given back (negative);
 * - `invoice_credit`: the negative total of an invoice booked for the customer, which settles it (negative).
 */
export type CustomerBalanceKind = (typeof CUSTOMER_BALANCE_KINDS)[number];

export const MAX_BALANCE_DESCRIPTION_LENGTH = 500;

export interface CustomerBalanceAdjustedData {
  readonly customerId: string;
  /** The entry's id: a random uuid the service chooses. */
  readonly entryId: string;
  /** Minor units, never 0; negative = credit to the customer. */
  readonly amount: number;
  /** Uppercase ISO 4217. */
  readonly currency: string;
  readonly description: string | null;
  readonly kind: CustomerBalanceKind;
  /** The invoice the entry is about (applied to, voided, credited by the credit note, or whose negative total it is); null for an adjustment. */
  readonly invoiceId: string | null;
  readonly creditNoteId: string | null;
  /** The ledger's sum in the currency after this entry (≤ 0). */
  readonly balanceAfter: number;
  readonly createdAt: string;
}
export type CustomerBalanceAdjusted = DomainEvent<'CustomerBalanceAdjusted', CustomerBalanceAdjustedData>;
