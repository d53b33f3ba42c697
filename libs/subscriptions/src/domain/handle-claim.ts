import { ConflictError, Evolver, deciderOf } from '@billing/shared-kernel';
import { SubscriptionHandleClaimed } from './subscription-events';

/** A subscription handle's claim stream: who holds the handle, if anyone. */
export interface HandleClaim {
  readonly subscriptionId: string | null;
}

export const handleClaimEvolver: Evolver<HandleClaim, SubscriptionHandleClaimed> = {
  initialState: () => ({ subscriptionId: null }),
  evolve: (state, event) => (event.type === 'SubscriptionHandleClaimed' ? { subscriptionId: event.data.subscriptionId } : state),
};

/** Whether the handle is free to claim (a generated one that is taken moves on to the next number). */
export function handleIsFree(state: HandleClaim): boolean {
  return state.subscriptionId === null;
}

/** Claims the handle for the subscription: a handle is held by one subscription only. */
export function decideClaimHandle(command: { readonly handle: string; readonly subscriptionId: string }, state: HandleClaim): SubscriptionHandleClaimed[] {
  if (!handleIsFree(state)) throw new ConflictError('subscription-handle-taken', `another subscription of this environment has the handle '${command.handle}'`);
  return [{ type: 'SubscriptionHandleClaimed', schemaVersion: 1, data: { handle: command.handle, subscriptionId: command.subscriptionId } }];
}

/** The handle claim aggregate as one value: what it folds (handleClaimEvolver) and what each of its commands decides. */
export const handleClaimDecider = deciderOf(handleClaimEvolver, { ClaimHandle: decideClaimHandle });
