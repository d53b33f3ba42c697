import { CreateIdempotencyKeys1763800000000 } from './1763800000000-create-idempotency-keys';
import { CreateEnvironmentClocks1763800100000 } from './1763800100000-create-environment-clocks';
import { AddIdempotencyKeysTransactionId1764700100000 } from './1764700100000-add-idempotency-keys-transaction-id';

/** The platform's own tables. */
export const platformMigrations = [CreateIdempotencyKeys1763800000000, CreateEnvironmentClocks1763800100000, AddIdempotencyKeysTransactionId1764700100000];
