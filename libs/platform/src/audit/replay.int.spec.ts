import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { EventStore, Projection, ProjectionRunner, RecordedEvent } from '@billing/event-store';
import { createTestDataSource, TestDatabase } from '@billing/testing';
import { BoundedContext } from '../context/bounded-context';
import { replayReadModels } from './replay';

/**
 * A read model that adds each event's amount to its account: not idempotent,
 * so a batch applied twice shows as a total the replay does not reach (what
 * a copy of the invoices in the payments read model once showed when a settlement was applied twice).
 */
const totals: Projection = {
  name: 'test.totals',
  streamTypes: ['account'],
  tables: ['test_totals'],
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager) {
    await tx.query(
      `insert into test_totals (account, total, events) select account, sum(amount), count(*) from unnest($1::uuid[], $2::bigint[]) as e(account, amount) group by account
       on conflict (account) do update set total = test_totals.total + excluded.total, events = test_totals.events + excluded.events`,
      [events.map((event) => event.streamId), events.map((event) => (event.data as { amount: number }).amount)],
    );
  },
  async reset(tx: EntityManager) {
    await tx.query(`delete from test_totals`);
  },
};

/** Each account's last deposit as a JSON document in a text column, compared by a replay as jsonb (`jsonText`). */
const lastDeposits: Projection = {
  name: 'test.last-deposits',
  streamTypes: ['account'],
  tables: [{ name: 'test_last_deposits', jsonText: ['document'] }],
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager) {
    const last = new Map(
      events.map((event) => [event.streamId, JSON.stringify({ account: event.streamId, amount: (event.data as { amount: number }).amount })]),
    );
    await tx.query(
      `insert into test_last_deposits (account, document) select * from unnest($1::uuid[], $2::text[])
       on conflict (account) do update set document = excluded.document`,
      [[...last.keys()], [...last.values()]],
    );
  },
  async reset(tx: EntityManager) {
    await tx.query(`delete from test_last_deposits`);
  },
};

const context = { name: 'test', streams: [], projections: [totals] } as unknown as BoundedContext;

describe('replay against live read models kept by several runners', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let close: () => Promise<void>;
  const accounts = Array.from({ length: 8 }, () => randomUUID());
  const versions = new Map<string, number>();

  beforeAll(async () => {
    ({ database, dataSource, close } = await createTestDataSource());
    await dataSource.query(`create table test_totals (account uuid primary key, total bigint not null, events int not null)`);
    await dataSource.query(`create table test_last_deposits (account uuid primary key, document text not null)`);
  });
  afterAll(async () => {
    await close();
  });

  /** Appends `count` events, one at a time, to the accounts in turn (each writer its own accounts, so versions never conflict). */
  async function write(store: EventStore, writer: number, writers: number, count: number): Promise<void> {
    const own = accounts.filter((_account, index) => index % writers === writer);
    for (let i = 0; i < count; i++) {
      const account = own[i % own.length];
      const version = versions.get(account) ?? 0;
      versions.set(account, version + 1);
      await store.append(
        [
          {
            stream: { environmentId: account, streamType: 'account', streamId: account },
            expectedVersion: version === 0 ? 'no_stream' : version,
            events: [{ eventId: randomUUID(), type: 'Deposited', schemaVersion: 1, data: { amount: 1 + (i % 7) }, occurredAt: new Date() }],
          },
        ],
        { actor: 'test', requestId: null, correlationId: randomUUID(), causationId: null },
      );
    }
  }

  it('issue 20 #6: eight runners on their own connections under concurrent writes apply each batch once: the replay equals the live read model', async () => {
    const sources = await Promise.all(Array.from({ length: 8 }, () => new DataSource({ type: 'postgres', url: database.url, extra: { max: 4 } }).initialize()));
    // Small batches and a fast poll: runners contend for every batch, as three worker processes do.
    const runners = sources.map((source) => {
      const runner = new ProjectionRunner(source, new EventStore(source), { batchSize: 3, pollIntervalMs: 5 });
      runner.registerProjection(totals);
      return runner;
    });
    try {
      await Promise.all(runners.map((runner) => runner.start(database.url, { runContinuously: true })));
      const writing = Promise.all(sources.map((source, writer) => write(new EventStore(source), writer, sources.length, 30)));
      // Every runner drives batches itself too, as an API process does after each write.
      await Promise.all(
        runners.flatMap((runner) =>
          [0, 1, 2].map(async () => {
            for (let i = 0; i < 300; i++) await runner.runBatch(totals.name, 1);
          }),
        ),
      );
      await writing;
      const [{ head }] = await dataSource.query(`select count(*)::int as head from events where stream_type = 'account'`);
      expect(head).toBe(240);
      for (let caught = false; !caught;) {
        await runners[0].runBatch(totals.name);
        caught = (await runners[0].lag())[0].eventsBehind === 0;
      }
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
      await Promise.all(sources.map((source) => source.destroy()));
    }
    const [{ events }] = await dataSource.query(`select coalesce(sum(events), 0)::int as events from test_totals`);
    expect(events).toBe(240);
    const [report] = await replayReadModels({ dataSource, databaseUrl: database.url, contexts: [context] });
    expect(report).toEqual({
      projection: totals.name,
      events: 240,
      tables: [{ table: 'test_totals', equal: true, liveOnly: 0, replayOnly: 0, examples: [], key: ['account'] }],
    });
  });

  it('issue 20 #6: a replay while writers append and runners follow compares live and replay at one position: equal', async () => {
    const sources = await Promise.all(Array.from({ length: 3 }, () => new DataSource({ type: 'postgres', url: database.url, extra: { max: 4 } }).initialize()));
    const runners = sources.map((source) => {
      const runner = new ProjectionRunner(source, new EventStore(source), { batchSize: 3, pollIntervalMs: 5 });
      runner.registerProjection(totals);
      return runner;
    });
    let writing = true;
    const writers = sources.map(async (source, writer) => {
      const store = new EventStore(source);
      while (writing) await write(store, writer, sources.length, 5);
    });
    try {
      await Promise.all(runners.map((runner) => runner.start(database.url, { runContinuously: true })));
      // Replays, each while events keep coming: every one compares at one position of the log.
      for (let i = 0; i < 3; i++) {
        const [report] = await replayReadModels({ dataSource, databaseUrl: database.url, contexts: [context] });
        expect(report.tables).toEqual([{ table: 'test_totals', equal: true, liveOnly: 0, replayOnly: 0, examples: [], key: ['account'] }]);
      }
    } finally {
      writing = false;
      await Promise.all(writers);
      await Promise.all(runners.map((runner) => runner.stop()));
      await Promise.all(sources.map((source) => source.destroy()));
    }
    const [{ events }] = await dataSource.query(`select count(*)::int as events from events where stream_type = 'account'`);
    expect(events).toBeGreaterThan(240);
  });

  it('names the first differing row by its key when a live row differs from the log', async () => {
    const changed = [...accounts].sort().slice(2, 5).reverse();
    await dataSource.query(`update test_totals set total = total + 1 where account = any($1::uuid[])`, [changed]);
    const [report] = await replayReadModels({ dataSource, databaseUrl: database.url, contexts: [context] });
    const [table] = report.tables;
    expect({ equal: table.equal, liveOnly: table.liveOnly, replayOnly: table.replayOnly, key: table.key }).toEqual({
      equal: false,
      liveOnly: 3,
      replayOnly: 3,
      key: ['account'],
    });
    // In key order, each side: the live row and its replayed twin under the same key.
    expect(table.examples.map((example) => [example.side, (example.row as { account: string }).account])).toEqual([
      ...[...changed].sort().map((account) => ['live', account]),
      ...[...changed].sort().map((account) => ['replay', account]),
    ]);
  });

  it('compares a jsonText column as JSON: the same document spelt otherwise is equal, another value is not', async () => {
    const documents = { name: 'test', streams: [], projections: [lastDeposits] } as unknown as BoundedContext;
    const runner = new ProjectionRunner(dataSource, new EventStore(dataSource), {});
    runner.registerProjection(lastDeposits);
    await runner.rebuild(lastDeposits.name);
    const replayed = async () => (await replayReadModels({ dataSource, databaseUrl: database.url, contexts: [documents] }))[0].tables[0];
    expect((await replayed()).equal).toBe(true);
    // jsonb prints its keys in its own order and with spaces: the text differs, the document does not.
    await dataSource.query(`update test_last_deposits set document = document::jsonb::text`);
    expect(await dataSource.query(`select 1 from test_last_deposits where document like '{"account":%'`)).toEqual([]);
    expect((await replayed()).equal).toBe(true);
    await dataSource.query(`update test_last_deposits set document = jsonb_set(document::jsonb, '{amount}', '999')::text where account = $1`, [accounts[0]]);
    expect(await replayed()).toMatchObject({ equal: false, liveOnly: 1, replayOnly: 1 });
  });
});
