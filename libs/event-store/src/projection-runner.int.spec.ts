import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@billing/testing';
import { EventStore } from './event-store';
import { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';
import { queryRows } from './sql';
import { EventMetadata, RecordedEvent } from './types';

const metadata: EventMetadata = { actor: 'user-1', requestId: null, correlationId: 'c', causationId: null };

/** A read model that records each event it applied and how often. */
function countingProjection(name: string, failOn?: (event: RecordedEvent, attempt: number) => boolean): Projection {
  let attempt = 0;
  return {
    name,
    consistency: 'read-your-writes',
    async apply(event: RecordedEvent, tx: EntityManager) {
      await tx.query(
        `insert into test_applied (projection, event_id, times) values ($1, $2, 1)
         on conflict (projection, event_id) do update set times = test_applied.times + 1`,
        [name, event.eventId],
      );
      if (failOn?.(event, attempt++)) throw new Error('simulated crash mid-batch');
    },
    async reset(tx: EntityManager) {
      await tx.query(`delete from test_applied where projection = $1`, [name]);
    },
  };
}

describe('ProjectionRunner (Postgres)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let store: EventStore;

  async function appendEvents(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const eventId = randomUUID();
      ids.push(eventId);
      await store.append(
        [
          {
            stream: { environmentId: randomUUID(), streamType: 'thing', streamId: randomUUID() },
            expectedVersion: 'no_stream',
            events: [{ eventId, type: 'ThingCreated', schemaVersion: 1, data: { i }, occurredAt: new Date() }],
          },
        ],
        metadata,
      );
    }
    return ids;
  }

  async function applied(name: string): Promise<Map<string, number>> {
    const rows = await queryRows<{ event_id: string; times: number }>(
      dataSource.manager,
      `select event_id, times from test_applied where projection = $1`,
      [name],
    );
    return new Map(rows.map((r) => [r.event_id, r.times]));
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = new DataSource({ type: 'postgres', url: database.url });
    await dataSource.initialize();
    await dataSource.query(`create table test_applied (projection text, event_id uuid, times int, primary key (projection, event_id))`);
    store = new EventStore(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it('applies each event exactly once across a crash in the middle of a batch', async () => {
    const ids = await appendEvents(5);
    const name = `crash-${randomUUID()}`;
    // The first run dies on its third event: nothing of that batch may stick, checkpoint included.
    const crashing = new ProjectionRunner(dataSource, store, [countingProjection(name, (_e, attempt) => attempt === 2)]);
    await expect(crashing.runBatch(countingProjection(name, (_e, attempt) => attempt === 2))).rejects.toThrow('simulated crash');
    expect((await applied(name)).size).toBe(0);

    const healthy = new ProjectionRunner(dataSource, store, [countingProjection(name)]);
    while ((await healthy.runBatch(countingProjection(name))) !== 0) {
      /* drain */
    }
    const result = await applied(name);
    for (const id of ids) expect(result.get(id)).toBe(1);
    expect([...result.values()].every((times) => times === 1)).toBe(true);
  });

  it('runs one active runner per projection when two processes run it at once', async () => {
    const ids = await appendEvents(40);
    const name = `pair-${randomUUID()}`;
    const otherDataSource = new DataSource({ type: 'postgres', url: database.url });
    await otherDataSource.initialize();
    const runners = [
      new ProjectionRunner(dataSource, store, [countingProjection(name)], { batchSize: 7 }),
      new ProjectionRunner(otherDataSource, new EventStore(otherDataSource), [countingProjection(name)], { batchSize: 7 }),
    ];
    try {
      await Promise.all(runners.map((runner) => runner.start(database.url)));
      const caughtUp = await Promise.all(
        runners.map(async (runner) => {
          const [last] = await queryRows<{ transaction_id: string; global_position: string }>(
            dataSource.manager,
            `select transaction_id::text, global_position::text from events order by events.transaction_id desc, events.global_position desc limit 1`,
          );
          return runner.waitFor({ transactionId: last.transaction_id, globalPosition: last.global_position }, 10_000);
        }),
      );
      expect(caughtUp).toEqual([true, true]);
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
      await otherDataSource.destroy();
    }
    const result = await applied(name);
    for (const id of ids) expect(result.get(id)).toBe(1);
  });

  it('is woken by NOTIFY: a new event is projected without waiting for the poll', async () => {
    const name = `notify-${randomUUID()}`;
    const runner = new ProjectionRunner(dataSource, store, [countingProjection(name)], { pollIntervalMs: 60_000 });
    await runner.start(database.url);
    try {
      const [id] = await appendEvents(1);
      const [last] = await queryRows<{ transaction_id: string; global_position: string }>(
        dataSource.manager,
        `select transaction_id::text, global_position::text from events where event_id = $1`,
        [id],
      );
      // waitFor also wakes the runner; stop that from masking NOTIFY by checking the read model directly.
      const deadline = Date.now() + 10_000; // far below the 60 s poll: only NOTIFY can wake it in time
      while (!(await applied(name)).has(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect((await applied(name)).get(id)).toBe(1);
      expect(await runner.waitFor({ transactionId: last.transaction_id, globalPosition: last.global_position })).toBe(true);
    } finally {
      await runner.stop();
    }
  });

  it('rebuilds a read model from position zero', async () => {
    const ids = await appendEvents(3);
    const name = `rebuild-${randomUUID()}`;
    const projection = countingProjection(name);
    const runner = new ProjectionRunner(dataSource, store, [projection]);
    while ((await runner.runBatch(projection)) !== 0) {
      /* drain */
    }
    await dataSource.query(`update test_applied set times = 99 where projection = $1`, [name]);
    await runner.rebuild(name);
    const result = await applied(name);
    for (const id of ids) expect(result.get(id)).toBe(1);
  });
});
