import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { comparePositions, EventMetadata, EventStore, queryRows, RecordedEvent, StreamRef, toNewEvents } from '@billing/event-store';
import { CommandMetadata, DomainEvent } from '@billing/shared-kernel';
import { createTestDataSource } from '@billing/testing';
import { BillableMetricCreated, UsageSettingsChanged } from '../domain';
import { billableMetricId, billableMetricStream, usageSettingsStream } from '../streams';
import { UsageEventsAggregatedValues1764600500000 } from '../migrations/1764600500000-usage-events-aggregated-values';
import { subscriptionsProjection } from './subscriptions.projection';

/**
 * The usage tables against real Postgres: the subscriptions projection folds
 * metrics, usage settings and every pricing version of a price (rebuildable:
 * the same rows again), and usage_events refuses every update and delete.
 */
describe('usage tables (Postgres)', () => {
  let close: () => Promise<void>;
  let dataSource: DataSource;
  let store: EventStore;
  const metadata: EventMetadata = { actor: 'test', requestId: null, correlationId: 'c', causationId: null };
  const meta = (iso: string): CommandMetadata => ({ now: new Date(iso), newId: randomUUID });

  beforeAll(async () => {
    ({ dataSource, close } = await createTestDataSource());
    store = new EventStore(dataSource);
  });
  afterAll(() => close());

  async function append(stream: StreamRef, events: DomainEvent[], when: string): Promise<void> {
    const current = (await store.readStream(stream)).length;
    await store.append([{ stream, expectedVersion: current === 0 ? 'no_stream' : current, events: toNewEvents(events, meta(when)) }], metadata);
  }
  async function project(streams: StreamRef[]): Promise<void> {
    const events: RecordedEvent[] = (await Promise.all(streams.map((stream) => store.readStream(stream)))).flat().sort(comparePositions);
    await dataSource.transaction((tx) => subscriptionsProjection.applyBatch(events, tx));
  }

  it('folds metrics, settings and price versions; a replay leaves the same rows', async () => {
    const environmentId = randomUUID();
    const priceId = randomUUID();
    const price: StreamRef = { environmentId, streamType: 'price', streamId: priceId };
    const created = {
      type: 'PriceCreated',
      schemaVersion: 1,
      data: {
        priceId,
        name: 'Calls',
        description: null,
        priceModel: 'fee',
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        billingTiming: 'event_based',
        metricCode: 'calls',
        pricing: { eur: { unitAmount: 100 } },
        productId: null,
        createdAt: '2026-03-01T00:00:00.000Z',
      },
    };
    await append(price, [created], '2026-03-01T00:00:00.000Z');
    await append(
      price,
      [{ type: 'PriceUpdated', schemaVersion: 1, data: { priceId, name: 'Renamed', updatedAt: '2026-03-10T00:00:00.000Z' } }],
      '2026-03-10T00:00:00.000Z',
    );
    await append(
      price,
      [{ type: 'PriceUpdated', schemaVersion: 1, data: { priceId, pricing: { eur: { unitAmount: 200 } }, updatedAt: '2026-03-15T00:00:00.000Z' } }],
      '2026-03-15T00:00:00.000Z',
    );
    const metric: BillableMetricCreated = {
      type: 'BillableMetricCreated',
      schemaVersion: 1,
      data: {
        metricId: billableMetricId(environmentId, 'calls'),
        code: 'calls',
        name: 'Calls',
        aggregation: 'count',
        field: null,
        createdAt: '2026-03-01T00:00:00.000Z',
      },
    };
    await append(billableMetricStream(environmentId, 'calls'), [metric], '2026-03-01T00:00:00.000Z');
    const settings: UsageSettingsChanged = {
      type: 'UsageSettingsChanged',
      schemaVersion: 1,
      data: { usageGracePeriodHours: 12, changedAt: '2026-03-02T00:00:00.000Z' },
    };
    await append(usageSettingsStream(environmentId), [settings], '2026-03-02T00:00:00.000Z');
    const streams = [price, billableMetricStream(environmentId, 'calls'), usageSettingsStream(environmentId)];
    await project(streams);

    const snapshot = async () => ({
      versions: await queryRows(
        dataSource.manager,
        `select version, effective_at, pricing from subscription_price_versions where environment_id = $1 order by version`,
        [environmentId],
      ),
      metrics: await queryRows(dataSource.manager, `select state from billable_metrics where environment_id = $1`, [environmentId]),
      settings: await queryRows(dataSource.manager, `select state from usage_settings where environment_id = $1`, [environmentId]),
    });
    const first = await snapshot();
    expect(first.versions).toEqual([
      { version: 1, effective_at: new Date('2026-03-01T00:00:00.000Z'), pricing: { eur: { unitAmount: 100 } } },
      { version: 3, effective_at: new Date('2026-03-15T00:00:00.000Z'), pricing: { eur: { unitAmount: 200 } } },
    ]);
    expect(first.metrics).toEqual([
      {
        state: {
          status: 'active',
          id: metric.data.metricId,
          code: 'calls',
          name: 'Calls',
          aggregation: 'count',
          field: null,
          createdAt: '2026-03-01T00:00:00.000Z',
        },
      },
    ]);
    expect(first.settings).toEqual([{ state: { status: 'set', usageGracePeriodHours: 12, updatedAt: '2026-03-02T00:00:00.000Z' } }]);

    // A rebuild: reset, then the same events again.
    await dataSource.transaction((tx) => subscriptionsProjection.reset(tx));
    expect((await snapshot()).versions).toEqual([]);
    await project(streams);
    expect(await snapshot()).toEqual(first);
  });

  it('usage_events is append-only: updates and deletes are refused', async () => {
    const environmentId = randomUUID();
    await dataSource.query(
      `insert into usage_events (environment_id, id, subscription_id, metric_code, occurred_at, properties, received_at) values ($1, 'e-1', $2, 'calls', now(), '{}', now())`,
      [environmentId, randomUUID()],
    );
    await expect(dataSource.query(`update usage_events set metric_code = 'other' where environment_id = $1`, [environmentId])).rejects.toThrow(/append-only/);
    await expect(dataSource.query(`delete from usage_events where environment_id = $1`, [environmentId])).rejects.toThrow(/append-only/);
    const [row] = await queryRows<{ n: number }>(
      dataSource.manager,
      `select count(*)::int as n from usage_events where environment_id = $1 and metric_code = 'calls'`,
      [environmentId],
    );
    expect(row.n).toBe(1);
  });

  it('migration 1764600500000 fills the aggregated values of the events recorded before it, from the metrics in the log', async () => {
    const environmentId = randomUUID();
    const subscriptionId = randomUUID();
    const metrics: [string, BillableMetricCreated['data']['aggregation'], string | null][] = [
      ['calls', 'count', null],
      ['storage', 'sum', 'gb'],
      ['peak', 'max', 'gb'],
      ['users', 'unique_count', 'user'],
    ];
    for (const [code, aggregation, field] of metrics) {
      const created: BillableMetricCreated = {
        type: 'BillableMetricCreated',
        schemaVersion: 1,
        data: { metricId: billableMetricId(environmentId, code), code, name: code, aggregation, field, createdAt: '2026-03-01T00:00:00.000Z' },
      };
      await append(billableMetricStream(environmentId, code), [created], '2026-03-01T00:00:00.000Z');
    }
    const migration = new UsageEventsAggregatedValues1764600500000();
    const runner = dataSource.createQueryRunner();
    try {
      // The table as it was before the migration, with rows recorded then.
      await migration.down(runner);
      await dataSource.query(
        `insert into usage_events (environment_id, id, subscription_id, metric_code, occurred_at, properties, received_at)
         select $1, code || '-' || n, $2, code, now(), properties, now()
           from unnest($3::text[], $4::jsonb[]) as t(code, properties), generate_series(1, 2) as n`,
        [
          environmentId,
          subscriptionId,
          metrics.map(([code]) => code),
          [{ gb: 1 }, { gb: '12.3456' }, { gb: 7.5 }, { user: { b: 1, a: 'x' } }].map((properties) => JSON.stringify(properties)),
        ],
      );
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const rows = await queryRows<{ metric_code: string; scaled_value: string | null; unique_value: string | null }>(
      dataSource.manager,
      `select distinct metric_code, scaled_value, unique_value from usage_events where environment_id = $1 order by metric_code`,
      [environmentId],
    );
    expect(rows).toEqual([
      { metric_code: 'calls', scaled_value: null, unique_value: null },
      { metric_code: 'peak', scaled_value: '75000', unique_value: null },
      { metric_code: 'storage', scaled_value: '123456', unique_value: null },
      { metric_code: 'users', scaled_value: null, unique_value: '{"a": "x", "b": 1}' },
    ]);
  });
});
