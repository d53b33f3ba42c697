import { EntityManager } from 'typeorm';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { foldStreamBatches, Projection, RecordedEvent } from '@billing/event-store';
import { Customer, customerEvolver, invoiceCustomerOf } from '../../domain';
import { CUSTOMER_STREAM } from '../../streams';

export const CUSTOMERS_PROJECTION = 'invoicing.customers';

/**
 * `customers`: one row per customer stream (set-wise: one select and one
 * upsert per batch), with the columns GET /customers filters and orders on,
 * the folded state and the customer as invoices name it (read by draft
 * invoices when they are shown).
 */
export const customersProjection: Projection = {
  name: CUSTOMERS_PROJECTION,
  tables: ['customers'],
  streamTypes: [CUSTOMER_STREAM],

  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
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
    await tx.query(`delete from customers`);
  },
};
