import { EntityManager } from 'typeorm';
import { FoldedStream, foldStreamBatches, jsonRows, jsonRowsFrom, Projection, RecordedEvent } from '@billing/event-store';
import { DomainEvent, Evolver, readModelPaymentMethod } from '@billing/shared-kernel';
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
      writePayments(rows, tx),
    );
    await fold<PaymentProvider>(
      events,
      tx,
      PAYMENT_PROVIDER_STREAM_TYPE,
      'payment_providers',
      paymentProviderEvolver as unknown as Evolver<PaymentProvider, DomainEvent>,
      (rows) => writeProviders(rows, tx),
    );
    await fold<Collection>(
      events,
      tx,
      INVOICE_COLLECTION_STREAM_TYPE,
      'payment_collections',
      collectionEvolver as unknown as Evolver<Collection, DomainEvent>,
      (rows) => writeCollections(rows, tx),
    );
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate payments, payment_providers, payment_collections`);
  },
};

/** Payments with the columns GET /payments filters and orders on. */
function writePayments(rows: readonly FoldedStream<Payment>[], tx: EntityManager): Promise<unknown> {
  return tx.query(
    `insert into payments (environment_id, id, invoice_id, customer_id, provider, currency, amount, status, created_at, version, state, refund_pending_since, recorded_at)
   select * from ${jsonRowsFrom(
     1,
     `environment_id uuid, id uuid, invoice_id uuid, customer_id text, provider text, currency text, amount bigint, status text,
      created_at timestamptz, version integer, state jsonb, refund_pending_since timestamptz, recorded_at timestamptz`,
   )}
   on conflict (environment_id, id) do update set status = excluded.status, version = excluded.version, state = excluded.state, refund_pending_since = excluded.refund_pending_since,
     recorded_at = excluded.recorded_at`,
    [
      jsonRows(
        rows.map((r) => ({
          environment_id: r.environmentId,
          id: r.id,
          invoice_id: r.state.invoiceId,
          customer_id: r.state.customerId,
          provider: r.state.provider,
          currency: r.state.currency,
          amount: r.state.amount,
          status: r.state.status,
          created_at: r.state.createdAt,
          version: r.version,
          state: r.state,
          refund_pending_since: pendingRefunds(r.state)[0]?.createdAt ?? null,
          // Real time: a pending payment or refund is looked up a while after this, whatever the environment's clock.
          recorded_at: r.recordedAt,
        })),
      ),
    ],
  );
}

function writeProviders(rows: readonly FoldedStream<PaymentProvider>[], tx: EntityManager): Promise<unknown> {
  return tx.query(
    `insert into payment_providers (environment_id, id, name, version, state)
   select * from ${jsonRowsFrom(1, 'environment_id uuid, id uuid, name text, version integer, state jsonb')}
   on conflict (environment_id, id) do update set version = excluded.version, state = excluded.state`,
    // Stored without the (encrypted) credentials: nothing reads them from here.
    [
      jsonRows(
        rows.map((r) => ({
          environment_id: r.environmentId,
          id: r.id,
          name: r.state.name,
          version: r.version,
          state: { ...r.state, credentials: null },
        })),
      ),
    ],
  );
}

function writeCollections(rows: readonly FoldedStream<Collection>[], tx: EntityManager): Promise<unknown> {
  return tx.query(
    `insert into payment_collections (environment_id, id, invoice_id, status, next_attempt_at, state)
   select * from ${jsonRowsFrom(1, 'environment_id uuid, id uuid, invoice_id uuid, status text, next_attempt_at timestamptz, state jsonb')}
   on conflict (environment_id, id) do update set status = excluded.status, next_attempt_at = excluded.next_attempt_at, state = excluded.state`,
    [
      jsonRows(
        rows.map((r) => ({
          environment_id: r.environmentId,
          id: r.id,
          invoice_id: r.state.invoiceId,
          status: r.state.status,
          // A try under way is looked at again at once (its payment may have its outcome by now).
          next_attempt_at: r.state.status === 'attempting' ? r.state.updatedAt : r.state.nextAttemptAt,
          // No clear payment token in a read model: one folded from an event from before tokens were sealed is redacted.
          state: readModelPaymentMethod(r.state),
        })),
      ),
    ],
  );
}
