import { CreateIdempotencyKeys1763800000000 } from './1763800000000-create-idempotency-keys';
import { CreateEnvironmentClocks1763800100000 } from './1763800100000-create-environment-clocks';

/** The platform's own tables. */
export const platformMigrations = [CreateIdempotencyKeys1763800000000, CreateEnvironmentClocks1763800100000];
