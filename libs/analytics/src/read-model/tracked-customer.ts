import { CustomerDiscount, CustomerEvent, evolveCustomerDiscounts } from '@billing/invoicing';

/**
 * What analytics keeps of a customer record for MRR: its discounts (invoicing's published fold of them) and its time
 * zone, in which their windows are dates. Nothing else of the record (no contact details, no payment method).
 */
export interface TrackedCustomer {
  readonly timeZone: string;
  readonly discounts: readonly CustomerDiscount[];
}

/** Before its first event; CustomerCreated, always a customer stream's first, sets the time zone. */
export const NO_CUSTOMER: TrackedCustomer = { timeZone: 'UTC', discounts: [] };

/** The customer as analytics keeps it after one of its events: the same object when the event changes neither. */
export function evolveTrackedCustomer(state: TrackedCustomer, event: CustomerEvent): TrackedCustomer {
  switch (event.type) {
    case 'CustomerCreated':
    case 'CustomerUpdated':
      return state.timeZone === event.data.timeZone ? state : { ...state, timeZone: event.data.timeZone };
    case 'CustomerDiscountApplied':
    case 'CustomerDiscountEnded':
      return { ...state, discounts: evolveCustomerDiscounts(state.discounts, event) };
    default:
      return state;
  }
}
