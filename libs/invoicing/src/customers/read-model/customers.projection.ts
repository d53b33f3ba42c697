import { EntityManager } from 'typeorm';
import { DomainEvent, Evolver, readModelPaymentMethod } from '@billing/shared-kernel';
import { foldStreamBatches, jsonRows, jsonRowsFrom, Projection, RecordedEvent } from '@billing/event-store';
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
       select * from ${jsonRowsFrom(
         1,
         'environment_id uuid, id uuid, handle text, email text, status text, created_at timestamptz, version integer, state jsonb, invoice_customer jsonb',
       )}
       on conflict (environment_id, id) do update set handle = excluded.handle, email = excluded.email, status = excluded.status,
         version = excluded.version, state = excluded.state, invoice_customer = excluded.invoice_customer`,
      [
        jsonRows(
          rows.map((r) => ({
            environment_id: r.environmentId,
            id: r.id,
            handle: r.state.handle,
            email: r.state.email,
            status: r.state.status,
            created_at: r.state.createdAt,
            version: r.version,
            // A token folded from an event from before tokens were sealed is kept as its hint alone (CustomerRecordQuery reads the stream then).
            state: { ...r.state, defaultPaymentMethod: readModelPaymentMethod(r.state.defaultPaymentMethod) ?? null },
            invoice_customer: invoiceCustomerOf(r.state),
          })),
        ),
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
  await tx.query(
    `insert into customer_balance_transactions (environment_id, id, customer_id, position, view)
     select * from ${jsonRowsFrom(1, 'environment_id uuid, id uuid, customer_id uuid, position bigint, view jsonb')}
     on conflict (environment_id, id) do nothing`,
    [
      jsonRows(
        entries.map((event) => {
          const entry = event.data as CustomerBalanceAdjustedData;
          return {
            environment_id: event.environmentId,
            id: entry.entryId,
            customer_id: event.streamId,
            position: event.globalPosition,
            view: toBalanceTransactionView(entry),
          };
        }),
      ),
    ],
  );
}
