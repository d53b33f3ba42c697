import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { createTestDataSource, eventually, TestDatabase } from '@billing/testing';
import { ReadModelTimeoutError } from './errors';
import { EventStore } from './event-store';
import { ProjectionRunner, SKIP_AHEAD_EVENTS } from './projection-runner';
import { queryRows } from './sql';
import { Projection, Reactor } from './subscriptions';
import { EventMetadata, RecordedEvent, WrittenStream } from './types';

const metadata: EventMetadata = { actor: 'user-1', requestId: null, correlationId: 'c', causationId: null };

/** A read model that records each event it applied and how often. */
function countingProjection(name: string, failOn?: (event: RecordedEvent, attempt: number) => boolean, streamTypes = ['thing']): Projection {
  let attempt = 0;
  return {
    name,
    streamTypes,
    tables: ['test_applied'],
    async applyBatch(events: readonly RecordedEvent[], tx: EntityManager) {
      for (const event of events) {
        if (failOn?.(event, attempt++)) throw new Error('simulated crash mid-batch');
      }
      await tx.query(
        `insert into test_applied (projection, event_id, times) select $1, unnest($2::uuid[]), 1
         on conflict (projection, event_id) do update set times = test_applied.times + 1`,
        [name, events.map((e) => e.eventId)],
      );
    },
    async reset(tx: EntityManager) {
      await tx.query(`delete from test_applied where projection = $1`, [name]);
    },
  };
}

/**
 * A read model of one row per stream that adds each event's amount to it: not idempotent (an event applied twice,
 * or skipped, shows), and the row of a stream whose events span batches is read back and written again.
 */
function balancesProjection(name: string, streamTypes: string[]): Projection {
  return {
    name,
    streamTypes,
    tables: ['test_balances'],
    async applyBatch(events: readonly RecordedEvent[], tx: EntityManager) {
      await tx.query(
        `insert into test_balances (projection, stream_id, total, events, version)
         select $1, stream_id, sum(amount), count(*), max(version) from unnest($2::uuid[], $3::bigint[], $4::int[]) as e(stream_id, amount, version)
          group by stream_id
         on conflict (projection, stream_id) do update
           set total = test_balances.total + excluded.total, events = test_balances.events + excluded.events, version = excluded.version`,
        [name, events.map((e) => e.streamId), events.map((e) => (e.data as { amount: number }).amount), events.map((e) => e.streamVersion)],
      );
    },
    async reset(tx: EntityManager) {
      await tx.query(`delete from test_balances where projection = $1`, [name]);
    },
  };
}

describe('ProjectionRunner (Postgres)', () => {
  let database: TestDatabase;
  let close: () => Promise<void>;
  let dataSource: DataSource;
  let store: EventStore;

  let lastWritten: WrittenStream[] = [];

  async function appendEvents(count: number, streamType = 'thing'): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const eventId = randomUUID();
      ids.push(eventId);
      lastWritten = [
        ...(
          await store.append(
            [
              {
                stream: { environmentId: randomUUID(), streamType, streamId: randomUUID() },
                expectedVersion: 'no_stream',
                events: [{ eventId, type: 'ThingCreated', schemaVersion: 1, data: { i }, occurredAt: new Date() }],
              },
            ],
            metadata,
          )
        ).written,
      ];
    }
    return ids;
  }

  async function applied(name: string): Promise<Map<string, number>> {
    const rows = await queryRows<{ event_id: string; times: number }>(dataSource.manager, `select event_id, times from test_applied where projection = $1`, [
      name,
    ]);
    return new Map(rows.map((r) => [r.event_id, r.times]));
  }

  beforeAll(async () => {
    ({ database, dataSource, close } = await createTestDataSource());
    await dataSource.query(`create table test_applied (projection text, event_id uuid, times int, primary key (projection, event_id))`);
    await dataSource.query(
      `create table test_balances (projection text, stream_id uuid, total bigint not null, events int not null, version int not null, primary key (projection, stream_id))`,
    );
    store = new EventStore(dataSource);
  });

  afterAll(async () => {
    await close();
  });

  function runnerWith(subscribers: (Projection | Reactor)[], options = {}, source = dataSource, eventStore = store): ProjectionRunner {
    const runner = new ProjectionRunner(source, eventStore, options);
    for (const subscriber of subscribers) {
      if ('applyBatch' in subscriber) runner.registerProjection(subscriber);
      else runner.registerReactor(subscriber);
    }
    return runner;
  }

  /**
   * Runs batches until the subscriber has nothing left. The snapshot horizon is cluster-wide, so another
   * database's open transaction (a parallel test file) can hide committed events for a moment: keep going,
   * within a deadline, until none is behind.
   */
  async function drain(runner: ProjectionRunner, name: string): Promise<void> {
    const behind = async () => (await runner.lag()).find((l) => l.name === name)?.eventsBehind;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 5))) {
      while ((await runner.runBatch(name)) !== 0) {
        /* until nothing is readable */
      }
      if ((await behind()) === 0) return;
    }
  }

  it('applies each event exactly once across a crash in the middle of a batch', async () => {
    const ids = await appendEvents(5);
    const name = `crash-${randomUUID()}`;
    // The first run dies on its third event: nothing of that batch may stick, checkpoint included.
    const crashing = runnerWith([countingProjection(name, (_e, attempt) => attempt === 2)]);
    await expect(crashing.runBatch(name)).rejects.toThrow('simulated crash');
    expect((await applied(name)).size).toBe(0);

    await drain(runnerWith([countingProjection(name)]), name);
    const result = await applied(name);
    for (const id of ids) expect(result.get(id)).toBe(1);
    expect([...result.values()].every((times) => times === 1)).toBe(true);
  });

  it('runs one active runner per projection when two processes follow the log at once', async () => {
    const ids = await appendEvents(40);
    const name = `pair-${randomUUID()}`;
    const otherDataSource = new DataSource({ type: 'postgres', url: database.url });
    await otherDataSource.initialize();
    const runners = [
      runnerWith([countingProjection(name)], { batchSize: 7 }),
      runnerWith([countingProjection(name)], { batchSize: 7 }, otherDataSource, new EventStore(otherDataSource)),
    ];
    try {
      await Promise.all(runners.map((runner) => runner.start(database.url, { runContinuously: true })));
      await Promise.all(runners.map((runner) => runner.awaitProjections(lastWritten)));
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
      await otherDataSource.destroy();
    }
    const result = await applied(name);
    for (const id of ids) expect(result.get(id)).toBe(1);
  });

  it('is woken by NOTIFY: a new event is projected without waiting for the poll', async () => {
    const name = `notify-${randomUUID()}`;
    const runner = runnerWith([countingProjection(name)], { pollIntervalMs: 60_000 });
    await runner.start(database.url, { runContinuously: true });
    try {
      const [id] = await appendEvents(1);
      // awaitProjections would run the batch itself: check the read model directly instead.
      const deadline = Date.now() + 10_000; // far below the 60 s poll: only NOTIFY can wake it in time
      while (!(await applied(name)).has(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect((await applied(name)).get(id)).toBe(1);
    } finally {
      await runner.stop();
    }
  });

  it('wakes a reactor only for the event types it acts on; its poll moves it over the others', async () => {
    const name = `typed-${randomUUID()}`;
    const reacted: string[] = [];
    const reactor: Reactor = {
      name,
      streamTypes: ['thing'],
      eventTypes: ['ThingShipped'],
      async react(events) {
        reacted.push(...events.map((event) => event.eventId));
      },
    };
    await drain(runnerWith([reactor]), name);
    reacted.length = 0;
    const runner = runnerWith([reactor], { pollIntervalMs: 60_000 });
    await runner.start(database.url, { runContinuously: true });
    try {
      // The worker's first round (every subscriber, at its start) ends before the test's appends.
      await new Promise((r) => setTimeout(r, 300));
      const [created] = await appendEvents(1);
      // Nothing it acts on: no wake (the 60 s poll is far away), so no batch and the checkpoint stays.
      await new Promise((r) => setTimeout(r, 500));
      expect(reacted).toEqual([]);
      // Two appends of one turn share one statement (one announcement per stream type, both event types named).
      const shipped = randomUUID();
      const other = randomUUID();
      await Promise.all(
        [
          { eventId: shipped, type: 'ThingShipped' },
          { eventId: other, type: 'ThingCreated' },
        ].map(({ eventId, type }) =>
          store.append(
            [
              {
                stream: { environmentId: randomUUID(), streamType: 'thing', streamId: randomUUID() },
                expectedVersion: 'no_stream',
                events: [{ eventId, type, schemaVersion: 1, data: {}, occurredAt: new Date() }],
              },
            ],
            metadata,
          ),
        ),
      );
      const deadline = Date.now() + 10_000;
      while (!reacted.includes(shipped) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      // Woken by the announcement, its batch reads the log from its checkpoint: the event it was not woken for too.
      expect(reacted).toEqual(expect.arrayContaining([created, shipped]));
      expect(new Set(reacted).size).toBe(reacted.length);
    } finally {
      await runner.stop();
    }
  });

  it('lets background batches take turns, none held back by a slow one for longer than its turn', async () => {
    const slow = `slow-${randomUUID()}`;
    const fast = `fast-${randomUUID()}`;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const reacted = new Map<string, string[]>([
      [slow, []],
      [fast, []],
    ]);
    const reactor = (name: string, wait: () => Promise<void>): Reactor => ({
      name,
      streamTypes: ['thing'],
      async react(events) {
        await wait();
        reacted.get(name)!.push(...events.map((event) => event.eventId));
      },
    });
    const subscribers = [reactor(slow, () => released), reactor(fast, async () => undefined)];
    await drain(runnerWith([reactor(slow, async () => undefined), reactor(fast, async () => undefined)]), slow);
    await drain(runnerWith(subscribers), fast);
    reacted.get(fast)!.length = 0;
    const runner = runnerWith(subscribers, { pollIntervalMs: 60_000 });
    await runner.start(database.url, { runContinuously: true });
    try {
      const [id] = await appendEvents(1);
      // The slow one holds its batch (and took the turn first, or will) until released; the fast one still runs.
      const deadline = Date.now() + 10_000;
      while (!reacted.get(fast)!.includes(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(reacted.get(fast)).toContain(id);
      expect(reacted.get(slow)).not.toContain(id);
    } finally {
      release();
      await runner.stop();
    }
  });

  it('listens again when its LISTEN connection is terminated, and is woken by NOTIFY again', async () => {
    const name = `relisten-${randomUUID()}`;
    const runner = runnerWith([countingProjection(name)], { pollIntervalMs: 60_000 });
    await runner.start(database.url, { runContinuously: true });
    const listeners = async () =>
      (
        await queryRows<{ pid: number }>(
          dataSource.manager,
          `select pid from pg_stat_activity where datname = current_database() and application_name = 'billing-projector-listen'`,
        )
      ).map((row) => row.pid);
    try {
      const [before] = await listeners();
      await dataSource.query(`select pg_terminate_backend($1)`, [before]);
      const deadline = Date.now() + 10_000;
      while (!(await listeners()).some((pid) => pid !== before) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect((await listeners()).filter((pid) => pid !== before)).toHaveLength(1);
      const [id] = await appendEvents(1);
      while (!(await applied(name)).has(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect((await applied(name)).get(id)).toBe(1);
    } finally {
      await runner.stop();
    }
    expect(await listeners()).toEqual([]);
  });

  it("moves a subscriber of rare streams over the other streams' events, so that its next batch reads the log from there", async () => {
    const name = `rare-${randomUUID()}`;
    const runner = runnerWith([countingProjection(name, undefined, ['rare'])]);
    const checkpoint = async () =>
      (
        await queryRows<{ position: string }>(dataSource.manager, `select global_position::text as position from projection_checkpoints where name = $1`, [
          name,
        ])
      )[0]?.position;
    /** One stream of `count` events of another type than the projection's: one append, one statement. */
    const appendOthers = async (count: number) => {
      const events = Array.from({ length: count }, (_, i) => ({
        eventId: randomUUID(),
        type: 'ThingCreated',
        schemaVersion: 1,
        data: { i },
        occurredAt: new Date(),
      }));
      const stream = { environmentId: randomUUID(), streamType: 'thing', streamId: randomUUID() };
      lastWritten = [...(await store.append([{ stream, expectedVersion: 'no_stream', events }], metadata)).written];
    };
    const skippedToHead = async () => {
      for (const deadline = Date.now() + 10_000; (await checkpoint()) !== lastWritten[0].position.globalPosition && Date.now() < deadline;) {
        expect(await runner.runBatch(name)).toBe(0);
        await new Promise((r) => setTimeout(r, 5));
      }
      return (await checkpoint()) === lastWritten[0].position.globalPosition;
    };
    // At least SKIP_AHEAD_EVENTS of other streams past its checkpoint: a batch moves it to the newest one.
    await appendOthers(SKIP_AHEAD_EVENTS + 1);
    expect(await skippedToHead()).toBe(true);
    // Fewer: not worth a commit, the checkpoint stays.
    await appendOthers(3);
    expect(await runner.runBatch(name)).toBe(0);
    expect(await checkpoint()).not.toBe(lastWritten[0].position.globalPosition);
    await appendOthers(SKIP_AHEAD_EVENTS + 1);
    expect(await skippedToHead()).toBe(true);
    expect((await applied(name)).size).toBe(0);
    // Its own events still reach it, once.
    const [rare] = await appendEvents(1, 'rare');
    await drain(runner, name);
    expect([...(await applied(name)).entries()]).toEqual([[rare, 1]]);
  });

  it('issue 41 #2: a batch bound to a position on another stream (where a live checkpoint skipped ahead) moves its checkpoint there', async () => {
    const name = `bound-${randomUUID()}`;
    const runner = runnerWith([countingProjection(name, undefined, ['rare'])]);
    const checkpoint = async () =>
      (
        await queryRows<{ position: string }>(dataSource.manager, `select global_position::text as position from projection_checkpoints where name = $1`, [
          name,
        ])
      )[0]?.position;
    const [rare] = await appendEvents(1, 'rare');
    const stream = { environmentId: randomUUID(), streamType: 'thing', streamId: randomUUID() };
    const events = [{ eventId: randomUUID(), type: 'ThingCreated', schemaVersion: 1, data: {}, occurredAt: new Date() }];
    const [other] = (await store.append([{ stream, expectedVersion: 'no_stream', events }], metadata)).written;
    const later = await appendEvents(1, 'rare');
    // Its own event up to the bound applied, and the checkpoint at the bound: the other stream's event.
    // (Batches find nothing while an older transaction anywhere in the cluster holds the snapshot horizon back.)
    await eventually(
      async () => {
        await runner.runBatch(name, 1000, other.position);
        return checkpoint();
      },
      (position) => position === other.position.globalPosition,
      { what: 'the checkpoint at the bound' },
    );
    // (Earlier tests' rare events are before it too.)
    const upToBound = await applied(name);
    expect([upToBound.get(rare), ...later.map((id) => upToBound.get(id))]).toEqual([1, undefined]);
    // Never past it: the later event waits for an unbound batch.
    expect(await runner.runBatch(name, 1000, other.position)).toBe(0);
    await drain(runner, name);
    const all = await applied(name);
    expect([all.get(rare), ...later.map((id) => all.get(id))]).toEqual([1, 1]);
  });

  it('lets a process with no worker anywhere see its own write: the projection runs in-process after the commit', async () => {
    const name = `api-only-${randomUUID()}`;
    await drain(runnerWith([countingProjection(name)]), name);
    const apiOnly = runnerWith([countingProjection(name)], { pollIntervalMs: 60_000 });
    await apiOnly.start(database.url, { runContinuously: false });
    try {
      const [id] = await appendEvents(1);
      await apiOnly.awaitProjections(lastWritten);
      expect((await applied(name)).get(id)).toBe(1);
    } finally {
      await apiOnly.stop();
    }
  });

  it('a projection caught up on read: no write waits for it; catchUp brings it to the head of the log', async () => {
    const name = `on-read-${randomUUID()}`;
    await drain(runnerWith([countingProjection(name)]), name);
    const runner = runnerWith([{ ...countingProjection(name), caughtUpOnRead: true }], { pollIntervalMs: 60_000 });
    await runner.start(database.url, { runContinuously: false });
    try {
      const ids = await appendEvents(3);
      await runner.awaitProjections(lastWritten);
      expect([...(await applied(name)).keys()].filter((id) => ids.includes(id))).toEqual([]);
      await runner.catchUp(name);
      const after = await applied(name);
      expect(ids.map((id) => after.get(id))).toEqual([1, 1, 1]);
    } finally {
      await runner.stop();
    }
  });

  it('learns from another process that announces its checkpoint', async () => {
    const name = `announced-${randomUUID()}`;
    const waiting = runnerWith([countingProjection(name)]);
    const working = runnerWith([countingProjection(name)]);
    await waiting.start(database.url, { runContinuously: false });
    try {
      await appendEvents(3);
      // Hold the projection's lock as if another process ran it: the waiter cannot run it itself.
      const held = dataSource.createQueryRunner();
      await held.connect();
      await held.startTransaction();
      await held.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
      const wait = waiting.awaitProjections(lastWritten);
      await new Promise((r) => setTimeout(r, 100));
      await held.commitTransaction();
      await held.release();
      await drain(working, name);
      await wait;
    } finally {
      await waiting.stop();
    }
  });

  it('waits only for the projections that read the written streams, each up to its own stream', async () => {
    const things = `things-${randomUUID()}`;
    const others = `others-${randomUUID()}`;
    const runner = runnerWith([countingProjection(things, undefined, ['thing']), countingProjection(others, undefined, ['other'])]);
    await runner.start(database.url, { runContinuously: false });
    try {
      const environmentId = randomUUID();
      const result = await store.append(
        [
          { stream: { environmentId, streamType: 'thing', streamId: randomUUID() }, expectedVersion: 'no_stream', events: [newEvent()] },
          { stream: { environmentId, streamType: 'other', streamId: randomUUID() }, expectedVersion: 'no_stream', events: [newEvent(), newEvent()] },
        ],
        metadata,
      );
      expect(result.written.map((w) => w.streamType)).toEqual(['thing', 'other']);
      await runner.awaitProjections(result.written.slice(0, 1));
      await runner.awaitProjections(result.written);
    } finally {
      await runner.stop();
    }
  });

  it('answers a wait that cannot be met in time with ReadModelTimeoutError, never silently', async () => {
    const name = `stuck-${randomUUID()}`;
    const runner = runnerWith([countingProjection(name)], { readModelTimeoutMs: 300 });
    await runner.start(database.url, { runContinuously: false });
    const held = dataSource.createQueryRunner();
    await held.connect();
    await held.startTransaction();
    try {
      await held.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
      await appendEvents(1);
      await expect(runner.awaitProjections(lastWritten)).rejects.toBeInstanceOf(ReadModelTimeoutError);
    } finally {
      await held.rollbackTransaction();
      await held.release();
      await runner.stop();
    }
  });

  it('rebuilds a projection from position zero, and refuses to replay a reactor', async () => {
    const ids = await appendEvents(3);
    const name = `rebuild-${randomUUID()}`;
    const reacted: string[] = [];
    const reactor: Reactor = {
      name: `reactor-${randomUUID()}`,
      streamTypes: 'all',
      react: async (events) => void reacted.push(...events.map((e) => e.eventId)),
    };
    const runner = runnerWith([countingProjection(name), reactor]);
    await drain(runner, name);
    await drain(runner, reactor.name);
    const reactedOnce = reacted.length;
    await dataSource.query(`update test_applied set times = 99 where projection = $1`, [name]);
    expect(await runner.rebuild(name)).toBeGreaterThanOrEqual(3);
    const result = await applied(name);
    for (const id of ids) expect(result.get(id)).toBe(1);
    await expect(runner.rebuild(reactor.name)).rejects.toThrow('never replayed');
    expect(reacted.length).toBe(reactedOnce);
  });

  it('rebuilds several projections in one pass to the rows an incremental build made, while a runner keeps following them', async () => {
    const [typeA, typeB] = [`ledger-a-${randomUUID()}`, `ledger-b-${randomUUID()}`];
    const streams = Array.from({ length: 6 }, (_unused, index) => ({ type: index % 2 === 0 ? typeA : typeB, id: randomUUID(), version: 0 }));
    // Streams interleaved in the log, several events each, some appended together: rows span pages and batches.
    for (let round = 0; round < 5; round++) {
      for (const [index, stream] of streams.entries()) {
        const count = 1 + ((round + index) % 3);
        await store.append(
          [
            {
              stream: { environmentId: stream.id, streamType: stream.type, streamId: stream.id },
              expectedVersion: stream.version === 0 ? 'no_stream' : stream.version,
              events: Array.from({ length: count }, (_e, i) => ({
                eventId: randomUUID(),
                type: 'Deposited',
                schemaVersion: 1,
                data: { amount: 1 + ((round * 7 + index * 3 + i) % 11) },
                occurredAt: new Date(),
              })),
            },
          ],
          metadata,
        );
        stream.version += count;
      }
    }
    const projections = [balancesProjection(`balances-a-${randomUUID()}`, [typeA]), balancesProjection(`balances-ab-${randomUUID()}`, [typeA, typeB])];
    const rows = async () =>
      queryRows(dataSource.manager, `select * from test_balances where projection = any($1::text[]) order by projection, stream_id`, [
        projections.map((p) => p.name),
      ]);
    const incremental = runnerWith(projections, { batchSize: 2 });
    for (const projection of projections) await drain(incremental, projection.name);
    const built = await rows();
    expect(built.length).toBe(3 + 6);

    const rebuilding = runnerWith(projections);
    const progress: { events: number; total: number }[] = [];
    // A live runner of one of them goes on meanwhile (one event a batch): the rebuild applies only what lies past its checkpoint.
    let following = true;
    const follower = (async () => {
      while (following) await incremental.runBatch(projections[1].name, 1);
    })();
    try {
      const events = await rebuilding.rebuild(
        projections.map((p) => p.name),
        { pageSize: 5, progress: ({ events: done, total }) => progress.push({ events: done, total }) },
      );
      expect(events).toBe(streams.reduce((sum, stream) => sum + stream.version, 0));
    } finally {
      following = false;
      await follower;
    }
    expect(progress.at(-1)).toEqual({ events: progress[0].total, total: progress[0].total });
    expect(progress.map((p) => p.events)).toEqual([...progress.map((p) => p.events)].sort((a, b) => a - b));
    expect(await rows()).toEqual(built);
  });

  it('reports how many events each subscriber is behind', async () => {
    const name = `lag-${randomUUID()}`;
    const runner = runnerWith([countingProjection(name, undefined, ['lagging'])]);
    await appendEvents(4, 'lagging');
    expect((await runner.lag()).find((l) => l.name === name)?.eventsBehind).toBe(4);
    await drain(runner, name);
    expect((await runner.lag()).find((l) => l.name === name)?.eventsBehind).toBe(0);
  });
});

function newEvent() {
  return { eventId: randomUUID(), type: 'Happened', schemaVersion: 1, data: {}, occurredAt: new Date() };
}
