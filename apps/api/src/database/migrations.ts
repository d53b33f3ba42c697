import { catalogMigrations } from '@billing/catalog';
import { eventStoreMigrations } from '@billing/event-store';
import { invoicingMigrations } from '@billing/invoicing';
import { webhooksMigrations } from '@billing/webhooks';

/**
 * Every schema change of the service, in order. Each bounded context owns the
 * migrations of its read models and exports them; this list only collects them.
 */
export const ALL_MIGRATIONS = [...eventStoreMigrations, ...invoicingMigrations, ...catalogMigrations, ...webhooksMigrations];
