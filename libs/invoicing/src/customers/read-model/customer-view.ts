import { secretHint } from '@billing/shared-kernel';
import { Address, availableCredit, Customer, CustomerInvoiceSettings, CustomerPaymentMethod, CustomerState, TaxId } from '../../domain';

/** A customer's default payment method as every view shows it: the provider and the token's hint, never the token. */
export interface PublicPaymentMethod {
  readonly provider: string;
  readonly tokenHint: string;
}

/** The customer's credit balance in one currency: `available` is the credit the customer can use, ≥ 0 (the ledger's sum negated). */
export interface CustomerBalanceView {
  readonly currency: string;
  readonly available: number;
}

/** The customer as the API returns it: in responses, notifications, history and as-of reads alike. */
export interface CustomerView {
  readonly id: string;
  readonly handle: string;
  readonly status: 'active' | 'archived';
  readonly name: string | null;
  readonly email: string | null;
  readonly billingAddress: Address;
  readonly taxIds: readonly TaxId[];
  readonly locale: string;
  readonly timeZone: string;
  readonly currency: string | null;
  readonly invoiceSettings: CustomerInvoiceSettings;
  readonly defaultPaymentMethod: PublicPaymentMethod | null;
  readonly metadata: Readonly<Record<string, string>>;
  /** The customer's credit balance per currency; empty until a balance transaction exists. */
  readonly balances: readonly CustomerBalanceView[];
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly archivedAt: string | null;
}

export function publicPaymentMethod(method: CustomerPaymentMethod | null): PublicPaymentMethod | null {
  return method && { provider: method.provider, tokenHint: secretHint(method.token) };
}

export function toCustomerView(customer: Customer): CustomerView {
  return {
    id: customer.id,
    handle: customer.handle,
    status: customer.status,
    name: customer.name,
    email: customer.email,
    billingAddress: customer.billingAddress,
    taxIds: customer.taxIds,
    locale: customer.locale,
    timeZone: customer.timeZone,
    currency: customer.currency,
    invoiceSettings: customer.invoiceSettings,
    defaultPaymentMethod: publicPaymentMethod(customer.defaultPaymentMethod),
    metadata: customer.metadata,
    balances: Object.keys(customer.balances ?? {})
      .sort()
      .map((currency) => ({ currency, available: availableCredit(customer, currency) })),
    createdAt: customer.createdAt,
    updatedAt: customer.updatedAt,
    archivedAt: customer.archivedAt,
  };
}

/** The `customer` stream's view for notifications, history and as-of reads; null before it exists. */
export function customerViewOf(state: CustomerState): CustomerView | null {
  return state.status === 'none' ? null : toCustomerView(state);
}
