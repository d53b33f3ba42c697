import { SetMetadata } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { uuidV5 } from '@billing/shared-kernel';

export const OWN_COMMITS = 'billing:idempotency-own-commits';

/**
 * Marks a write whose command commits its own steps because something
 * outside the database happens between them (a payment: recorded, charged at
 * a gateway, its outcome recorded), so it cannot run inside the
 * Idempotency-Key's transaction. Its key is then checked before and its
 * response stored after, and the command makes its ids with
 * `idFromIdempotencyKey`: the same request again (a retry after a lost answer,
 * or a concurrent twin) finds its work already done instead of doing it twice.
 */
export const OwnCommits = (): MethodDecorator => SetMetadata(OWN_COMMITS, true);

const keyed = new AsyncLocalStorage<string>();

/** Runs an own-commits command with the identity of its Idempotency-Key and request fingerprint. */
export function withinKeyedRequest<Result>(identity: string, work: () => Promise<Result>): Promise<Result> {
  return keyed.run(identity, work);
}

/** An id for the current request made from its Idempotency-Key and fingerprint (the same request, the same id); undefined without a key. */
export function idFromIdempotencyKey(namespace: string): string | undefined {
  const identity = keyed.getStore();
  return identity === undefined ? undefined : uuidV5(identity, namespace);
}
