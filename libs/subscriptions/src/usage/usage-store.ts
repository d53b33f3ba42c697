import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { ExistingPrice, PricingEntry } from '@billing/catalog';
import { keysetPage, Page, pageTokenCodec, tokenField } from '@billing/platform';
import {
  Aggregation,
  BillableMetric,
  DEFAULT_USAGE_SETTINGS,
  ONE_UNIT,
  PriceVersion,
  Subscription,
  SubscriptionItem,
  UsageSettings,
  UsageShares,
} from '../domain';
import { billableMetricId } from '../streams';
import { currencyVersions, PeriodUsage, ratePeriodUsage } from './period-rating';

/** Billable metrics are listed by code. */
const METRIC_TOKEN = pageTokenCodec({ code: tokenField.text(100) });

/** A row to ingest: the client's id and the event as it will be stored (subscription resolved). */
export interface UsageRow {
  readonly id: string;
  readonly subscriptionId: string;
  readonly metricCode: string;
  readonly occurredAt: Date;
  readonly properties: Record<string, unknown>;
}

/**
 * The usage context's storage and its rating, shared by ingestion, the
 * billing engine and GET /subscriptions/{id}/usage (one code path: what the
 * usage endpoint answers is what the engine would bill). Statements run on the
 * caller's manager (the engine's unit of work) when given.
 */
@Injectable()
export class UsageStore {
  constructor(private readonly dataSource: DataSource) {}

  async metric(environmentId: string, code: string, manager: EntityManager = this.dataSource.manager): Promise<BillableMetric | null> {
    const [row] = await queryRows<{ state: BillableMetric }>(manager, `select state from billable_metrics where environment_id = $1 and id = $2`, [
      environmentId,
      billableMetricId(environmentId, code),
    ]);
    return row?.state ?? null;
  }

  async metrics(environmentId: string, codes: readonly string[]): Promise<Map<string, BillableMetric>> {
    const rows = await queryRows<{ state: BillableMetric }>(
      this.dataSource.manager,
      `select state from billable_metrics where environment_id = $1 and id = any($2::uuid[])`,
      [environmentId, codes.map((code) => billableMetricId(environmentId, code))],
    );
    return new Map(rows.map((row) => [row.state.code, row.state]));
  }

  /** Ordered by code, keyset paged. */
  async listMetrics(environmentId: string, limit: number, pageToken?: string): Promise<Page<BillableMetric>> {
    const params: unknown[] = [environmentId, limit + 1];
    let after = '';
    if (pageToken !== undefined) {
      params.push(METRIC_TOKEN.decode(pageToken).code);
      after = `and (state->>'code') collate "C" > $3`;
    }
    const rows = await queryRows<{ state: BillableMetric }>(
      this.dataSource.manager,
      `select state from billable_metrics where environment_id = $1 ${after} order by state->>'code' collate "C" limit $2`,
      params,
    );
    return keysetPage(rows, { limit, codec: METRIC_TOKEN, key: (row) => ({ code: row.state.code }), item: (row) => row.state });
  }

  async settings(environmentId: string, manager: EntityManager = this.dataSource.manager): Promise<UsageSettings> {
    const [row] = await queryRows<{ state: UsageSettings }>(manager, `select state from usage_settings where environment_id = $1 and id = $1`, [environmentId]);
    return row?.state ?? DEFAULT_USAGE_SETTINGS;
  }

  /** The subscriptions among `ids`, as the read model holds them. */
  async subscriptions(environmentId: string, ids: readonly string[]): Promise<Map<string, Subscription>> {
    if (ids.length === 0) return new Map();
    const rows = await queryRows<{ id: string; state: Subscription }>(
      this.dataSource.manager,
      `select id, state from subscriptions where environment_id = $1 and id = any($2::uuid[])`,
      [environmentId, ids],
    );
    return new Map(rows.map((row) => [row.id, row.state]));
  }

  /** The subscriptions of these customers that have not ended, per customer id. */
  async subscriptionsOfCustomers(environmentId: string, customerIds: readonly string[]): Promise<Map<string, Subscription[]>> {
    const found = new Map<string, Subscription[]>();
    if (customerIds.length === 0) return found;
    const rows = await queryRows<{ customer_id: string; state: Subscription }>(
      this.dataSource.manager,
      `select customer_id, state from subscriptions where environment_id = $1 and customer_id = any($2::text[]) and status <> 'ended'`,
      [environmentId, customerIds],
    );
    for (const row of rows) found.set(row.customer_id, [...(found.get(row.customer_id) ?? []), row.state]);
    return found;
  }

  /**
   * Inserts the rows that are new (one statement, in the command's transaction) and answers
   * the ids it inserted; ids recorded before (by any request, also one running
   * concurrently: the insert waits for it) are skipped, and their stored rows
   * are returned for the caller to compare.
   */
  async ingest(
    environmentId: string,
    rows: readonly UsageRow[],
    metrics: ReadonlyMap<string, BillableMetric>,
    receivedAt: Date,
    manager: EntityManager,
  ): Promise<{ inserted: Set<string>; existing: Map<string, UsageRow> }> {
    if (rows.length === 0) return { inserted: new Set(), existing: new Map() };
    const metricOf = (row: UsageRow): BillableMetric => metrics.get(row.metricCode)!;
    // The value the row's metric aggregates, kept beside its properties (migration 1764600500000): a sum / max value
    // scaled by 10^4 (checked canonical at ingestion, so exact), a unique_count value as jsonb's canonical text.
    const inserted = await queryRows<{ id: string }>(
      manager,
      `insert into usage_events (environment_id, id, subscription_id, metric_code, occurred_at, properties, received_at, scaled_value, unique_value)
       select $1, id, subscription_id, metric_code, occurred_at, properties, $7,
              case when aggregation in ('sum', 'max') then ((properties ->> field)::numeric * ${ONE_UNIT})::bigint end,
              case when aggregation = 'unique_count' then coalesce(properties -> field, 'null'::jsonb)::text end
         from unnest($2::text[], $3::uuid[], $4::text[], $5::timestamptz[], $6::jsonb[], $8::text[], $9::text[])
           as t(id, subscription_id, metric_code, occurred_at, properties, aggregation, field)
       on conflict (environment_id, id) do nothing returning id`,
      [
        environmentId,
        rows.map((row) => row.id),
        rows.map((row) => row.subscriptionId),
        rows.map((row) => row.metricCode),
        rows.map((row) => row.occurredAt.toISOString()),
        rows.map((row) => JSON.stringify(row.properties)),
        receivedAt.toISOString(),
        rows.map((row) => metricOf(row).aggregation),
        rows.map((row) => metricOf(row).field),
      ],
    );
    const ids = new Set(inserted.map((row) => row.id));
    const others = rows.filter((row) => !ids.has(row.id)).map((row) => row.id);
    const existing = new Map<string, UsageRow>();
    if (others.length > 0) {
      const stored = await queryRows<{ id: string; subscription_id: string; metric_code: string; occurred_at: Date; properties: Record<string, unknown> }>(
        manager,
        `select id, subscription_id, metric_code, occurred_at, properties from usage_events where environment_id = $1 and id = any($2::text[])`,
        [environmentId, others],
      );
      for (const row of stored) {
        existing.set(row.id, {
          id: row.id,
          subscriptionId: row.subscription_id,
          metricCode: row.metric_code,
          occurredAt: row.occurred_at,
          properties: row.properties,
        });
      }
    }
    return { inserted: ids, existing };
  }

  /** One recorded usage event. */
  async usageEvent(environmentId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<UsageRow | null> {
    const [row] = await queryRows<{ id: string; subscription_id: string; metric_code: string; occurred_at: Date; properties: Record<string, unknown> }>(
      manager,
      `select id, subscription_id, metric_code, occurred_at, properties from usage_events where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row
      ? { id: row.id, subscriptionId: row.subscription_id, metricCode: row.metric_code, occurredAt: row.occurred_at, properties: row.properties }
      : null;
  }

  /**
   * Records that the event no longer counts (in the caller's transaction, with
   * its UsageEventCancelled), or answers when it was cancelled already: the
   * primary key decides between concurrent cancellations (the second waits for
   * the first to commit or roll back).
   */
  async recordCancellation(environmentId: string, id: string, cancelledAt: Date, manager: EntityManager): Promise<{ recorded: boolean; cancelledAt: Date }> {
    const [inserted] = await queryRows<{ cancelled_at: Date }>(
      manager,
      `insert into usage_event_cancellations (environment_id, id, cancelled_at) values ($1, $2, $3) on conflict do nothing returning cancelled_at`,
      [environmentId, id, cancelledAt.toISOString()],
    );
    if (inserted) return { recorded: true, cancelledAt: inserted.cancelled_at };
    const [existing] = await queryRows<{ cancelled_at: Date }>(
      manager,
      `select cancelled_at from usage_event_cancellations where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return { recorded: false, cancelledAt: existing.cancelled_at };
  }

  /**
   * Rates the item's usage in [from, to): its metric aggregated over the
   * events of the subscription, priced at each version of the item's price in
   * the subscription's currency. Throws a ValidationError (a billing failure
   * the engine records and retries) when the metric or the pricing is missing.
   */
  async rate(
    environmentId: string,
    subscription: Subscription,
    item: SubscriptionItem,
    from: Date,
    to: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PeriodUsage> {
    const schedule = item.schedule;
    const code = schedule.purchase === 'recurring' ? schedule.metricCode : undefined;
    if (code === undefined) throw new RangeError(`item ${item.id} is not usage-based`);
    const metric = await this.metric(environmentId, code, manager);
    const none = new Map<number, bigint>();
    if (metric === null) return ratePeriodUsage(item, subscription.currency, { metric, priceModel: null, versions: [], shares: none }, from, to);
    const [price] = await queryRows<{ state: ExistingPrice }>(manager, `select state from subscription_catalog_prices where environment_id = $1 and id = $2`, [
      environmentId,
      item.priceId,
    ]);
    const versions = await queryRows<{ effectiveAt: Date; pricing: Record<string, PricingEntry> }>(
      manager,
      `select effective_at as "effectiveAt", pricing from subscription_price_versions where environment_id = $1 and price_id = $2 order by version`,
      [environmentId, item.priceId],
    );
    const inForce = currencyVersions(versions, subscription.currency);
    // Without a version in the currency rating fails (ratePeriodUsage says why): nothing to aggregate for.
    const shares = inForce.length === 0 ? none : await this.shares(environmentId, subscription.id, metric, from, to, inForce, manager);
    return ratePeriodUsage(item, subscription.currency, { metric, priceModel: price?.state.priceModel ?? null, versions, shares }, from, to);
  }

  /**
   * The metric's aggregate over the subscription's events in [from, to) (cancelled ones left out), attributed to
   * the price versions in force at the events' times: one SQL statement over the usage_events_by_period index, so a
   * period of a million events is never read into Node. `attributeUsage` (domain/usage.ts) defines the same in code.
   * A version is a function of the event's time alone and later versions start later, so "the first event" (of a
   * unique value, or reaching the maximum) lies in the smallest version among those events: `min` of the version
   * index, with no sort and no tie-break by id. The values aggregated were stored at ingestion in columns of their
   * own (`scaled_value`, `unique_value`), so no row's jsonb is parsed here. With one version in force over the
   * whole period (the usual case) the version is the constant 0, which lets Postgres aggregate in parallel.
   */
  async shares(
    environmentId: string,
    subscriptionId: string,
    metric: BillableMetric,
    from: Date,
    to: Date,
    versions: readonly PriceVersion[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<UsageShares> {
    // width_bucket counts the later versions' starts at or before the event: the index of the version in force.
    const thresholds = versions.slice(1).map((version) => new Date(version.from).toISOString());
    const events = `from usage_events e
        where e.environment_id = $1 and e.subscription_id = $2 and e.metric_code = $3 and e.occurred_at >= $4 and e.occurred_at < $5
          and not exists (select 1 from usage_event_cancellations c where c.environment_id = e.environment_id and c.id = e.id)`;
    const version = thresholds.length === 0 ? '0' : `width_bucket(e.occurred_at, $6::timestamptz[])`;
    const statements: Record<Aggregation, string> = {
      count: `select ${version} as version, count(*) * ${ONE_UNIT} as quantity ${events} group by 1`,
      sum: `select ${version} as version, sum(e.scaled_value) as quantity ${events} group by 1`,
      // The greatest value, and with it the smallest version holding it: each version's greatest, the first of the greatest.
      max: `select ${version} as version, max(e.scaled_value) as quantity ${events} group by 1 order by 2 desc, 1 limit 1`,
      unique_count: `select version, count(*) * ${ONE_UNIT} as quantity
                       from (select min(${version}) as version ${events} group by e.unique_value) as first_seen
                      group by 1`,
    };
    const params: unknown[] = [environmentId, subscriptionId, metric.code, from, to];
    if (thresholds.length > 0) params.push(thresholds);
    const rows = await queryRows<{ version: number; quantity: string }>(manager, statements[metric.aggregation], params);
    return new Map(rows.map((row) => [Number(row.version), BigInt(row.quantity)]));
  }
}
