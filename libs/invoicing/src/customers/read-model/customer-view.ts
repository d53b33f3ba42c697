import { paymentTokenHint } from '@billing/shared-kernel';
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

/** A discount as the customer shows it: the coupon's terms (an amount in its currency) and the window of invoice periods it discounts. */
export interface CustomerDiscountView {
  readonly id: string;
  readonly couponId: string;
  readonly promotionCodeId: string | null;
  readonly name: string;
  readonly percentOff: number | null;
  readonly amountOff: number | null;
  readonly currency: string | null;
  readonly duration: string;
  readonly durationInMonths: number | null;
  readonly appliesTo: { readonly productIds: readonly string[] } | null;
  readonly start: string;
  readonly end: string | null;
  readonly endedAt: string | null;
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
  /** Coupons redeemed on the customer, in the order applied (ended ones too). */
  readonly discounts: readonly CustomerDiscountView[];
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly archivedAt: string | null;
}

export function publicPaymentMethod(method: CustomerPaymentMethod | null): PublicPaymentMethod | null {
  return method && { provider: method.provider, tokenHint: paymentTokenHint(method.token) };
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
    discounts: (customer.discounts ?? []).map((discount) => ({
      id: discount.id,
      couponId: discount.couponId,
      promotionCodeId: discount.promotionCodeId,
      name: discount.name,
      percentOff: discount.percentOff,
      amountOff: discount.amountOff,
      currency: discount.currency,
      duration: discount.duration,
      durationInMonths: discount.durationInMonths,
      appliesTo: discount.productIds === null ? null : { productIds: discount.productIds },
      start: discount.start,
      end: discount.end,
      endedAt: discount.endedAt,
    })),
    createdAt: customer.createdAt,
    updatedAt: customer.updatedAt,
    archivedAt: customer.archivedAt,
  };
}

/** The `customer` stream's view for notifications, history and as-of reads; null before it exists. */
export function customerViewOf(state: CustomerState): CustomerView | null {
  return state.status === 'none' ? null : toCustomerView(state);
}
