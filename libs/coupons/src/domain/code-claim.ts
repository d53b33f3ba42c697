import { ConflictError, DomainEvent, Evolver, deciderOf } from '@billing/shared-kernel';

/**
 * A code's claim: one stream per (environment, lower-cased code) holds which
 * coupon or promotion code has it. Creating one appends the claim at the
 * version loaded, in the same transaction, so no two hold one code, whatever
 * the concurrency and whatever the letter case.
 */
export type CodeClaimed = DomainEvent<'CodeClaimed', { readonly code: string; readonly ownerId: string }>;
export type CodeClaimEvent = CodeClaimed;

export interface CodeClaim {
  readonly ownerId: string | null;
}

export const codeClaimEvolver: Evolver<CodeClaim, CodeClaimEvent> = {
  initialState: () => ({ ownerId: null }),
  evolve: (state, event) => (event.type === 'CodeClaimed' ? { ownerId: event.data.ownerId } : state),
};

/** `problem` is the conflict's code: coupon-code-taken or promotion-code-taken. */
export function decideClaimCode(command: { code: string; ownerId: string; problem: string }, state: CodeClaim): CodeClaimed[] {
  if (state.ownerId === command.ownerId) return [];
  if (state.ownerId !== null) throw new ConflictError(command.problem, `the code '${command.code}' is taken in this environment (codes are case-insensitive)`);
  return [{ type: 'CodeClaimed', schemaVersion: 1, data: { code: command.code, ownerId: command.ownerId } }];
}

/** The code claim aggregate as one value: what it folds (codeClaimEvolver) and what each of its commands decides. */
export const codeClaimDecider = deciderOf(codeClaimEvolver, { ClaimCode: decideClaimCode });
