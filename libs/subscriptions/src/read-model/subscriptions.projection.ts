import { EntityManager } from 'typeorm';
import { FoldedStream, foldStreamBatches, jsonRows, jsonRowsFrom, Projection, RecordedEvent } from '@billing/event-store';
import { PRICE_STREAM_TYPE, PRODUCT_STREAM_TYPE, priceEvolver, productEvolver } from '@billing/catalog';
import { TAX_CODE_STREAM, taxCodeEvolver } from '@billing/invoicing';
import { DomainEvent, Evolver, readModelPaymentMethod } from '@billing/shared-kernel';
import { billableMetricEvolver, nextWorkAt, Subscription, subscriptionEvolver, SubscriptionState, usageSettingsEvolver } from '../domain';
import { BILLABLE_METRIC_STREAM, SUBSCRIPTION_STREAM, USAGE_SETTINGS_STREAM } from '../streams';

export const SUBSCRIPTIONS_PROJECTION = 'subscriptions.read-model';

/** One table kept as the latest folded state of each stream of one type. */
interface FoldedTable<State extends { status: string }> {
  readonly table: 'subscriptions' | FactsTable;
  readonly streamType: string;
  readonly evolver: Evolver<State, DomainEvent>;
  readonly upsert: (rows: readonly FoldedStream<State>[], tx: EntityManager) => Promise<unknown>;
}

const SUBSCRIPTIONS: FoldedTable<SubscriptionState> = {
  table: 'subscriptions',
  streamType: SUBSCRIPTION_STREAM,
  evolver: subscriptionEvolver as Evolver<SubscriptionState, DomainEvent>,
  upsert: (rows, tx) => {
    const subscriptions = rows.map((row) => ({ ...row, state: row.state as Subscription }));
    return tx.query(
      `insert into subscriptions (environment_id, id, handle, status, customer_id, created_at, version, state, next_work_at)
       select * from ${jsonRowsFrom(
         1,
         'environment_id uuid, id uuid, handle text, status text, customer_id text, created_at timestamptz, version integer, state jsonb, next_work_at timestamptz',
       )}
       on conflict (environment_id, id) do update set status = excluded.status, version = excluded.version, state = excluded.state,
         next_work_at = excluded.next_work_at`,
      [
        jsonRows(
          subscriptions.map((r) => ({
            environment_id: r.environmentId,
            id: r.id,
            handle: r.state.handle,
            status: r.state.status,
            customer_id: customerIdOf(r.state.customer),
            created_at: r.state.createdAt,
            version: r.version,
            // No clear payment token in a read model: one folded from an event from before tokens were sealed is redacted.
            state: { ...r.state, paymentMethod: readModelPaymentMethod(r.state.paymentMethod) ?? null },
            next_work_at: nextWorkAt(r.state),
          })),
        ),
      ],
    );
  },
};

type FactsTable = 'subscription_catalog_prices' | 'subscription_catalog_products' | 'subscription_tax_codes' | 'billable_metrics' | 'usage_settings';

const factsTable = <State extends { status: string }>(table: FactsTable, streamType: string, evolver: Evolver<State, DomainEvent>): FoldedTable<State> => ({
  table,
  streamType,
  evolver,
  upsert: (rows, tx) =>
    tx.query(
      `insert into ${table} (environment_id, id, state) select * from ${jsonRowsFrom(1, 'environment_id uuid, id uuid, state jsonb')}
       on conflict (environment_id, id) do update set state = excluded.state`,
      [jsonRows(rows.map((r) => ({ environment_id: r.environmentId, id: r.id, state: r.state })))],
    ),
});

const TABLES = [
  SUBSCRIPTIONS,
  factsTable('subscription_catalog_prices', PRICE_STREAM_TYPE, priceEvolver as Evolver<{ status: string }, DomainEvent>),
  factsTable('subscription_catalog_products', PRODUCT_STREAM_TYPE, productEvolver as Evolver<{ status: string }, DomainEvent>),
  factsTable('subscription_tax_codes', TAX_CODE_STREAM, taxCodeEvolver as Evolver<{ status: string }, DomainEvent>),
  factsTable('billable_metrics', BILLABLE_METRIC_STREAM, billableMetricEvolver as Evolver<{ status: string }, DomainEvent>),
  factsTable('usage_settings', USAGE_SETTINGS_STREAM, usageSettingsEvolver as Evolver<{ status: string }, DomainEvent>),
] as const;

/**
 * Every pricing a price has had, with the instant it took effect (the event's
 * time: the environment's clock of the request): PriceCreated and each
 * PriceUpdated that changed the pricing. Usage is rated at the version in
 * force when it happened. Idempotent (a rebuild inserts the same rows).
 */
async function recordPriceVersions(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
  const versions = events.filter(
    (event) =>
      event.streamType === PRICE_STREAM_TYPE &&
      (event.type === 'PriceCreated' || event.type === 'PriceUpdated') &&
      (event.data as { pricing?: unknown }).pricing !== undefined,
  );
  if (versions.length === 0) return;
  await tx.query(
    `insert into subscription_price_versions (environment_id, price_id, version, effective_at, pricing)
     select * from ${jsonRowsFrom(1, 'environment_id uuid, price_id uuid, version integer, effective_at timestamptz, pricing jsonb')} on conflict do nothing`,
    [
      jsonRows(
        versions.map((e) => ({
          environment_id: e.environmentId,
          price_id: e.streamId,
          version: e.streamVersion,
          effective_at: (e.data as { createdAt?: string; updatedAt?: string }).createdAt ?? (e.data as { updatedAt: string }).updatedAt,
          pricing: (e.data as { pricing: unknown }).pricing,
        })),
      ),
    ],
  );
}

const READ_MODEL_TABLES = [...TABLES.map(({ table }) => table), 'subscription_price_versions'];

/**
 * The subscriptions read model (with when the engine next has work for each)
 * and the facts subscriptions are checked against and priced with, folded
 * from the catalog's and invoicing's own events with their published evolvers.
 * Per table and batch: one select of the stored states the batch continues,
 * one upsert.
 */
export const subscriptionsProjection: Projection = {
  name: SUBSCRIPTIONS_PROJECTION,
  tables: READ_MODEL_TABLES,
  streamTypes: [SUBSCRIPTION_STREAM, PRICE_STREAM_TYPE, PRODUCT_STREAM_TYPE, TAX_CODE_STREAM, BILLABLE_METRIC_STREAM, USAGE_SETTINGS_STREAM],
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    for (const table of TABLES) await fold(table as FoldedTable<{ status: string }>, events, tx);
    await recordPriceVersions(events, tx);
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate ${READ_MODEL_TABLES.join(', ')}`);
  },
};

async function fold<State extends { status: string }>(model: FoldedTable<State>, events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
  const rows = await foldStreamBatches(events, model.streamType, model.table, model.evolver, tx);
  if (rows.length > 0) await model.upsert(rows, tx);
}

function customerIdOf(customer: unknown): string | null {
  const id = (customer as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
}
