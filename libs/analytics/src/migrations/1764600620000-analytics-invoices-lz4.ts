import { lz4Migration } from '@billing/event-store';

/** `analytics_invoices`' state compressed with lz4 where Postgres has it: written once per invoice event and by every rebuild. */
export const AnalyticsInvoicesLz41764600620000 = lz4Migration('AnalyticsInvoicesLz41764600620000', 'analytics_invoices', ['state']);
