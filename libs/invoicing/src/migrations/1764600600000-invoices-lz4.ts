import { lz4Migration } from '@billing/event-store';

/** `invoices`' view and state compressed with lz4 where Postgres has it: written once per invoice event and by every rebuild. */
export const InvoicesLz41764600600000 = lz4Migration('InvoicesLz41764600600000', 'invoices', ['view', 'state']);
