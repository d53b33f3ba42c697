import { CreateIdempotencyKeys1763800000000 } from './1763800000000-create-idempotency-keys';

/** The platform's own tables. */
export const platformMigrations = [CreateIdempotencyKeys1763800000000];
