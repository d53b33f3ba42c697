import { eventStoreMigrations } from '@billing/event-store';
import { platformMigrations } from '@billing/platform';
import { CONTEXTS } from '../contexts';

/** Every schema change of the service: the event store's, the platform's and each context's own (TypeORM runs them in timestamp order). */
export const ALL_MIGRATIONS = [...eventStoreMigrations, ...platformMigrations, ...CONTEXTS.flatMap((context) => context.migrations)];
