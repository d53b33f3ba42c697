import { DomainEvent, Evolver } from '@billing/shared-kernel';

/**
 * A customer record's first subscription, claimed on a stream of its own
 * (`customer-first-subscription`, one per environment and customer): the
 * first subscription created for the customer appends the claim expecting no
 * stream, in the creating transaction. So "is this the customer's first
 * subscription?" — what a first-time-only promotion code asks — is decided
 * inside that transaction: of two concurrent first subscriptions one appends
 * the claim, the other conflicts, is decided again on a fresh load and finds
 * the claim taken.
 */
export type CustomerFirstSubscriptionClaimed = DomainEvent<
  'CustomerFirstSubscriptionClaimed',
  { readonly customerId: string; readonly subscriptionId: string }
>;

export interface FirstSubscriptionClaim {
  readonly subscriptionId: string | null;
}

export const firstSubscriptionClaimEvolver: Evolver<FirstSubscriptionClaim, CustomerFirstSubscriptionClaimed> = {
  initialState: () => ({ subscriptionId: null }),
  evolve: (state, event) =>
    event.type === 'CustomerFirstSubscriptionClaimed' && state.subscriptionId === null ? { subscriptionId: event.data.subscriptionId } : state,
};

/**
 * Claims the customer's first subscription when nobody has (nothing when the
 * claim is held: later subscriptions write nothing here, so they never
 * contend with each other). `earlierSubscriptions`: the customer had
 * subscriptions before claims were recorded (the read model says so).
 */
export function decideClaimFirstSubscription(
  command: { readonly customerId: string; readonly subscriptionId: string; readonly earlierSubscriptions: boolean },
  state: FirstSubscriptionClaim,
): { readonly firstTime: boolean; readonly events: CustomerFirstSubscriptionClaimed[] } {
  if (state.subscriptionId !== null) return { firstTime: false, events: [] };
  const events: CustomerFirstSubscriptionClaimed[] = [
    { type: 'CustomerFirstSubscriptionClaimed', schemaVersion: 1, data: { customerId: command.customerId, subscriptionId: command.subscriptionId } },
  ];
  return { firstTime: !command.earlierSubscriptions, events };
}
