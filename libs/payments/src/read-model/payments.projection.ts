import { EntityManager } from 'typeorm';
import { FoldedStream, foldStreamBatches, Projection, RecordedEvent } from '@billing/event-store';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import {
  Collection,
  collectionEvolver,
  INVOICE_COLLECTION_STREAM_TYPE,
  Payment,
  PAYMENT_PROVIDER_STREAM_TYPE,
  PAYMENT_STREAM_TYPE,
  paymentEvolver,
  PaymentProvider,
  paymentProviderEvolver,
  pendingRefunds,
} from '../domain';

export const PAYMENTS_PROJECTION = 'payments.read-model';

/** Folds one stream type's events of a batch onto the states its table holds, and writes the touched rows. */
async function fold<State extends { status: string }>(
  events: readonly RecordedEvent[],
  tx: EntityManager,
  streamType: string,
  table: string,
  evolver: Evolver<State, DomainEvent>,
  write: (rows: readonly FoldedStream<State>[]) => Promise<unknown>,
): Promise<void> {
  const rows = await foldStreamBatches(events, streamType, table, evolver, tx);
  if (rows.length > 0) await write(rows);
}

/**
 * Payments (with the columns GET /payments filters and orders on), provider
 * views (never their credentials) and collections: set-wise, one select and
 * one upsert per table and batch. A payment reads its invoice from the
 * invoice's stream (under the invoice's payment lock), so no invoice events
 * are followed here and a write of an invoice never waits for this projection.
 */
export const paymentsProjection: Projection = {
  name: PAYMENTS_PROJECTION,
  tables: ['payments', 'payment_providers', 'payment_collections'],
  streamTypes: [PAYMENT_STREAM_TYPE, PAYMENT_PROVIDER_STREAM_TYPE, INVOICE_COLLECTION_STREAM_TYPE],
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    await fold<Payment>(events, tx, PAYMENT_STREAM_TYPE, 'payments', paymentEvolver as unknown as Evolver<Payment, DomainEvent>, (rows) =>
      tx.query(
        `insert into payments (environment_id, id, invoice_id, customer_id, provider, currency, amount, status, created_at, version, state, refund_pending_since, recorded_at)
         select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::timestamptz[], $10::integer[], $11::jsonb[], $12::timestamptz[], $13::timestamptz[])
         on conflict (environment_id, id) do update set status = excluded.status, version = excluded.version, state = excluded.state, refund_pending_since = excluded.refund_pending_since,
           recorded_at = excluded.recorded_at`,
        [
          rows.map((r) => r.environmentId),
          rows.map((r) => r.id),
          rows.map((r) => r.state.invoiceId),
          rows.map((r) => r.state.customerId),
          rows.map((r) => r.state.provider),
          rows.map((r) => r.state.currency),
          rows.map((r) => r.state.amount),
          rows.map((r) => r.state.status),
          rows.map((r) => r.state.createdAt),
          rows.map((r) => r.version),
          rows.map((r) => JSON.stringify(r.state)),
          rows.map((r) => pendingRefunds(r.state)[0]?.createdAt ?? null),
          // Real time: a pending payment or refund is looked up a while after this, whatever the environment's clock.
          rows.map((r) => r.recordedAt),
        ],
      ),
    );
    await fold<PaymentProvider>(
      events,
      tx,
      PAYMENT_PROVIDER_STREAM_TYPE,
      'payment_providers',
      paymentProviderEvolver as unknown as Evolver<PaymentProvider, DomainEvent>,
      (rows) =>
        tx.query(
          `insert into payment_providers (environment_id, id, name, version, state) select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::integer[], $5::jsonb[])
         on conflict (environment_id, id) do update set version = excluded.version, state = excluded.state`,
          // Stored without the (encrypted) credentials: nothing reads them from here.
          [
            rows.map((r) => r.environmentId),
            rows.map((r) => r.id),
            rows.map((r) => r.state.name),
            rows.map((r) => r.version),
            rows.map((r) => JSON.stringify({ ...r.state, credentials: null })),
          ],
        ),
    );
    await fold<Collection>(
      events,
      tx,
      INVOICE_COLLECTION_STREAM_TYPE,
      'payment_collections',
      collectionEvolver as unknown as Evolver<Collection, DomainEvent>,
      (rows) =>
        tx.query(
          `insert into payment_collections (environment_id, id, invoice_id, status, next_attempt_at, state)
         select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::jsonb[])
         on conflict (environment_id, id) do update set status = excluded.status, next_attempt_at = excluded.next_attempt_at, state = excluded.state`,
          [
            rows.map((r) => r.environmentId),
            rows.map((r) => r.id),
            rows.map((r) => r.state.invoiceId),
            rows.map((r) => r.state.status),
            // A try under way is looked at again at once (its payment may have its outcome by now).
            rows.map((r) => (r.state.status === 'attempting' ? r.state.updatedAt : r.state.nextAttemptAt)),
            rows.map((r) => JSON.stringify(r.state)),
          ],
        ),
    );
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate payments, payment_providers, payment_collections`);
  },
};
