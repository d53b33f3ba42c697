import { CollectionState, Payment, PaymentProvider, PaymentProviderState, PaymentState } from './domain';

/** The Payment resource (README: Payments). */
export interface PaymentView {
  readonly id: string;
  readonly invoiceId: string;
  readonly customerId: string;
  readonly amount: number;
  readonly currency: string;
  readonly status: Payment['status'];
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  readonly provider: string;
  readonly providerReference: string | null;
  readonly refundedAmount: number;
  readonly refunds: Payment['refunds'];
  /** 1 for a payment made by POST /payments; the try number for one made by a collection. */
  readonly attempt: number;
  /** Only while requires_action. */
  readonly nextAction?: Payment['nextAction'];
  /** Only once disputed. */
  readonly dispute?: Payment['dispute'];
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What a payment shows as it is, in the order the resource lists them; nextAction and dispute only while they apply. */
const PLAIN_MEMBERS = [
  'id',
  'invoiceId',
  'customerId',
  'amount',
  'currency',
  'status',
  'failureCode',
  'failureMessage',
  'provider',
  'providerReference',
  'refundedAmount',
  'refunds',
  'attempt',
] as const;

export function toPaymentView(payment: Payment): PaymentView {
  const plain = Object.fromEntries(PLAIN_MEMBERS.map((member) => [member, payment[member]])) as Pick<Payment, (typeof PLAIN_MEMBERS)[number]>;
  const { nextAction, dispute, createdAt, updatedAt } = payment;
  return { ...plain, ...(nextAction ? { nextAction } : {}), ...(dispute ? { dispute } : {}), createdAt, updatedAt };
}

export function paymentViewOf(state: PaymentState): PaymentView | null {
  return state.status === 'none' ? null : toPaymentView(state);
}

/** A payment provider as the API shows it: the credentials themselves never, only their hint. */
export interface PaymentProviderView {
  readonly id: string;
  readonly name: string;
  readonly status: PaymentProvider['status'];
  readonly credentialsHint: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export function toProviderView({ id, name, status, credentialsHint, createdAt, updatedAt }: PaymentProvider): PaymentProviderView {
  return { id, name, status, credentialsHint, createdAt, updatedAt };
}

export function providerViewOf(state: PaymentProviderState): PaymentProviderView | null {
  return state.status === 'none' ? null : toProviderView(state);
}

/** A subscription invoice's automatic collection, as notifications carry it (never the payment method token). */
export interface CollectionView {
  readonly invoiceId: string;
  readonly subscriptionId: string;
  readonly status: string;
  readonly provider: string;
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
  readonly lastFailureCode: string | null;
  readonly startedAt: string;
  readonly updatedAt: string;
}

export function collectionViewOf(state: CollectionState): CollectionView | null {
  if (state.status === 'none') return null;
  const { invoiceId, subscriptionId, status, provider, attempts, nextAttemptAt, lastFailureCode, startedAt, updatedAt } = state;
  return { invoiceId, subscriptionId, status, provider, attempts, nextAttemptAt, lastFailureCode, startedAt, updatedAt };
}
