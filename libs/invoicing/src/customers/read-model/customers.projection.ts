import { EntityManager } from 'typeorm';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { foldStreamBatches, Projection, RecordedEvent } from '@billing/event-store';
import { Customer, CustomerBalanceAdjustedData, customerEvolver, invoiceCustomerOf } from '../../domain';
import { toBalanceTransactionView } from './balance-transaction-view';
import { CUSTOMER_STREAM } from '../../streams';

export const CUSTOMERS_PROJECTION = 'invoicing.customers';

/**
 * `customers`: one row per customer stream (set-wise: one select and one
 * upsert per batch), with the columns GET /customers filters and orders on,
 * the folded state and the customer as invoices name it (read by draft
 * invoices when they are shown).
 * `customer_balance_transactions`: one row per balance entry (a
 * CustomerBalanceAdjusted event), inserted once per batch in one statement;
 * an entry never changes, so a replayed batch leaves its row as it is.
 */
export const customersProjection: Projection = {
  name: CUSTOMERS_PROJECTION,
  tables: ['customers', 'customer_balance_transactions'],
  streamTypes: [CUSTOMER_STREAM],

  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    await insertBalanceTransactions(events, tx);
    const rows = await foldStreamBatches<Customer>(events, CUSTOMER_STREAM, 'customers', customerEvolver as unknown as Evolver<Customer, DomainEvent>, tx);
    if (rows.length === 0) return;
    await tx.query(
      `insert into customers (environment_id, id, handle, email, status, created_at, version, state, invoice_customer)
       select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::integer[], $8::jsonb[], $9::jsonb[])
       on conflict (environment_id, id) do update set handle = excluded.handle, email = excluded.email, status = excluded.status,
         version = excluded.version, state = excluded.state, invoice_customer = excluded.invoice_customer`,
      [
        rows.map((r) => r.environmentId),
        rows.map((r) => r.id),
        rows.map((r) => r.state.handle),
        rows.map((r) => r.state.email),
        rows.map((r) => r.state.status),
        rows.map((r) => r.state.createdAt),
        rows.map((r) => r.version),
        rows.map((r) => JSON.stringify(r.state)),
        rows.map((r) => JSON.stringify(invoiceCustomerOf(r.state))),
      ],
    );
  },

  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate customer_balance_transactions, customers`);
  },
};

async function insertBalanceTransactions(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
  const entries = events.filter((event) => event.streamType === CUSTOMER_STREAM && event.type === 'CustomerBalanceAdjusted');
  if (entries.length === 0) return;
  const data = entries.map((event) => event.data as CustomerBalanceAdjustedData);
  await tx.query(
    `insert into customer_balance_transactions (environment_id, id, customer_id, position, view)
     select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::bigint[], $5::jsonb[])
     on conflict (environment_id, id) do nothing`,
    [
      entries.map((event) => event.environmentId),
      data.map((entry) => entry.entryId),
      entries.map((event) => event.streamId),
      entries.map((event) => event.globalPosition),
      data.map((entry) => JSON.stringify(toBalanceTransactionView(entry))),
    ],
  );
}
