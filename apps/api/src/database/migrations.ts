import { eventStoreMigrations } from '@billing/event-store';
import { CONTEXTS } from '../contexts';

/** Every schema change of the service, in order: the event store's, then each context's own. */
export const ALL_MIGRATIONS = [...eventStoreMigrations, ...CONTEXTS.flatMap((context) => context.migrations)];
