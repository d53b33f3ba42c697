import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDataSource } from '@billing/testing';
import { Aggregation, AGGREGATIONS, attributeUsage, BillableMetric, PriceVersion, UsageRecord, usageValue } from '../domain';
import { UsageRow, UsageStore } from './usage-store';

/**
 * Usage aggregated in SQL (UsageStore.shares) against its definition in code (attributeUsage), on real Postgres:
 * random events (equal timestamps, repeated and missing
 * unique values, cancelled events, events outside the period and of other metrics or subscriptions) and random
 * price versions, for every aggregation: the same quantity attributed to the same versions.
 */
describe('usage aggregation in SQL (Postgres)', () => {
  let close: () => Promise<void>;
  let dataSource: DataSource;
  let store: UsageStore;

  beforeAll(async () => {
    ({ dataSource, close } = await createTestDataSource());
    store = new UsageStore(dataSource);
  });
  afterAll(() => close());

  const FROM = Date.parse('2026-03-01T00:00:00.000Z');
  const TO = Date.parse('2026-04-01T00:00:00.000Z');
  const HOUR = 3_600_000;

  const eventArb = fc.record({
    id: fc.stringMatching(/^[A-Za-z0-9_-]{1,6}$/),
    // Whole hours around the period, so that ties and boundaries are common.
    at: fc.integer({ min: -24, max: 31 * 24 + 24 }).map((hours) => FROM + hours * HOUR),
    value: fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constantFrom('0.5', '12.25', '999.9999', '3')),
    unique: fc.option(fc.constantFrom('a', 'b', 'c', 7, 'd'), { nil: undefined }),
    cancelled: fc.boolean(),
    elsewhere: fc.constantFrom(null, null, null, 'metric', 'subscription'),
  });
  const worldArb = fc.record({
    events: fc.uniqueArray(eventArb, { selector: (event) => event.id, maxLength: 40 }),
    versionStarts: fc.uniqueArray(fc.integer({ min: -24, max: 31 * 24 + 24 }), { maxLength: 3 }).map((hours) => hours.sort((a, b) => a - b)),
  });

  it.each(AGGREGATIONS)('%s: the same shares per version as attributeUsage', async (aggregation: Aggregation) => {
    await fc.assert(
      fc.asyncProperty(worldArb, async ({ events, versionStarts }) => {
        const environmentId = randomUUID();
        const subscriptionId = randomUUID();
        const metric: BillableMetric = {
          status: 'active',
          id: randomUUID(),
          code: 'calls',
          name: 'Calls',
          aggregation,
          field: aggregation === 'count' ? null : aggregation === 'unique_count' ? 'user' : 'units',
          createdAt: new Date(FROM).toISOString(),
        };
        const properties = (event: (typeof events)[number]) =>
          event.unique === undefined ? { units: event.value } : { units: event.value, user: event.unique };
        if (events.length > 0) {
          // Through ingestion, which stores each row's aggregated value beside its properties.
          const metrics = new Map([metric, { ...metric, code: 'other' }].map((each) => [each.code, each]));
          const rows: UsageRow[] = events.map((event) => ({
            id: event.id,
            subscriptionId: event.elsewhere === 'subscription' ? randomUUID() : subscriptionId,
            metricCode: event.elsewhere === 'metric' ? 'other' : 'calls',
            occurredAt: new Date(event.at),
            properties: properties(event),
          }));
          await store.ingest(environmentId, rows, metrics, new Date(), dataSource.manager);
          await dataSource.query(`insert into usage_event_cancellations (environment_id, id, cancelled_at) select $1, unnest($2::text[]), now()`, [
            environmentId,
            events.filter((event) => event.cancelled).map((event) => event.id),
          ]);
        }
        const versions: PriceVersion[] = [FROM - 48 * HOUR, ...versionStarts.map((hours) => FROM + hours * HOUR)].map((from, version) => ({ from, version }));

        const records: UsageRecord[] = events
          .filter((event) => !event.cancelled && event.elsewhere === null && event.at >= FROM && event.at < TO)
          .map((event) => ({ at: event.at, id: event.id, value: recordValue(aggregation, properties(event)) }));
        const expected = attributeUsage(aggregation, records, versions);
        const actual = await store.shares(environmentId, subscriptionId, metric, new Date(FROM), new Date(TO), versions);
        const nonZero = (shares: ReadonlyMap<number, bigint>) => [...shares].filter(([, quantity]) => quantity !== 0n).sort(([a], [b]) => a - b);
        expect(nonZero(actual)).toEqual(nonZero(expected));
      }),
      { numRuns: 40 },
    );
  });

  function recordValue(aggregation: Aggregation, properties: { units: number | string; user?: string | number }): bigint | string | null {
    if (aggregation === 'count') return null;
    // As the JSON the store reads back: a missing property is JSON null.
    if (aggregation === 'unique_count') return JSON.stringify(properties.user ?? null);
    const parsed = usageValue(properties.units);
    if ('problem' in parsed) throw new Error(parsed.problem);
    return parsed.scaled;
  }
});
