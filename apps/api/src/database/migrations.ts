import { eventStoreMigrations } from '@billing/event-store';

/**
 * Every schema change of the service, in order. Each bounded context owns the
 * migrations of its read models and exports them; this list only collects them.
 */
export const ALL_MIGRATIONS = [...eventStoreMigrations];
