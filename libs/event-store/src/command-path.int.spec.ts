import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { createTestDataSource } from '@billing/testing';
import { CommandContext, CommandPath } from './command-path';
import { EventStore } from './event-store';
import { Projection } from './subscriptions';
import { ReadModelTimeoutError, RequestAnsweredBeforeError } from './errors';
import { ProjectionRunner } from './projection-runner';
import { RequestAnswer, StreamRef, WrittenStream } from './types';
import { outsideUnitOfWork } from './unit-of-work';

type Noted = DomainEvent<'Noted', { readonly note: string }>;

/** A stream's notes, in order. */
const notes: Evolver<readonly string[], Noted> = {
  initialState: () => [],
  evolve: (state, event) => (event.type === 'Noted' ? [...state, event.data.note] : state),
};

function noted(note: string): Noted {
  return { type: 'Noted', schemaVersion: 1, data: { note } };
}

function context(): CommandContext {
  return {
    meta: { now: new Date('2026-01-02T03:04:05Z'), newId: randomUUID },
    metadata: { actor: 'user-1', requestId: null, correlationId: randomUUID(), causationId: null },
  };
}

describe('CommandPath (Postgres)', () => {
  let dataSource: DataSource;
  let databaseUrl: string;
  let close: () => Promise<void>;
  let store: EventStore;
  let path: CommandPath;
  const environmentId = randomUUID();
  const stream = (): StreamRef => ({ environmentId, streamType: 'note', streamId: randomUUID() });
  const read = async (ref: StreamRef) => (await path.load(ref, notes)).state;

  beforeAll(async () => {
    let database: { url: string };
    ({ database, dataSource, close } = await createTestDataSource());
    databaseUrl = database.url;
    store = new EventStore(dataSource);
    path = new CommandPath(dataSource, store, new ProjectionRunner(dataSource, store));
    await dataSource.query(`create table if not exists command_path_numbers (environment_id uuid primary key, last int not null)`);
  });

  afterAll(async () => {
    await close();
  });

  it('appends every stream a command decided for, at the versions it loaded them, in one transaction', async () => {
    const [a, b] = [stream(), stream()];
    await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
    const version = await path.run(context(), 'reject', async (session) => {
      const loaded = await session.load(a, notes);
      session.append(a, [noted(`a${loaded.state.length + 1}`)]);
      return session.append(b, [noted('b1'), noted('b2')]);
    });
    expect(version).toBe(2);
    expect(await read(a)).toEqual(['a1', 'a2']);
    expect(await read(b)).toEqual(['b1', 'b2']);
  });

  it('writes none of the streams when one of them moved since it was loaded', async () => {
    const [a, b] = [stream(), stream()];
    await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
    const attempt = path.run(context(), 'reject', async (session) => {
      await session.load(a, notes);
      // Another writer between this command's load and its append.
      await store.append(
        [
          {
            stream: a,
            expectedVersion: 1,
            events: [{ eventId: randomUUID(), type: 'Noted', schemaVersion: 1, data: { note: 'other' }, occurredAt: new Date() }],
          },
        ],
        context().metadata,
      );
      session.append(b, [noted('b1')]);
      session.append(a, [noted('mine')]);
    });
    await expect(attempt).rejects.toMatchObject({ code: 'version-conflict' });
    expect(await read(a)).toEqual(['a1', 'other']);
    expect(await read(b)).toEqual([]);
  });

  it("takes a number from a counter read in the command's transaction, and gives it back when the command fails or conflicts", async () => {
    const a = stream();
    const other = { eventId: randomUUID(), type: 'Noted', schemaVersion: 1, data: { note: 'other' }, occurredAt: new Date() };
    const take = (failure: 'none' | 'rule' | 'conflict') =>
      path.run(context(), 'reject', async (session) => {
        const { version } = await session.load(a, notes);
        const [{ last }] = await session.query<{ last: number }>(
          `insert into command_path_numbers values ($1, 1) on conflict (environment_id) do update set last = command_path_numbers.last + 1 returning last`,
          [environmentId],
        );
        if (failure === 'rule') throw new Error('a rule refused it');
        // Another writer moves the stream (outside this transaction) after the load.
        if (failure === 'conflict')
          await store.append([{ stream: a, expectedVersion: version, events: [{ ...other, eventId: randomUUID() }] }], context().metadata);
        session.append(a, [noted(`#${last}`)]);
        return last;
      });
    const first = await take('none');
    await expect(take('rule')).rejects.toThrow('a rule refused it');
    await expect(take('conflict')).rejects.toMatchObject({ code: 'version-conflict' });
    expect(await take('none')).toBe(first + 1);
    expect(await read(a)).toEqual([`#${first}`, 'other', `#${first + 1}`]);
  });

  it('begins a command’s transaction with its first read of its own, not before: one that only loads and appends to one stream opens none', async () => {
    const begun = jest.fn();
    const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
    const spy = jest.spyOn(dataSource, 'createQueryRunner').mockImplementation((mode) => {
      const runner = createQueryRunner(mode);
      const startTransaction = runner.startTransaction.bind(runner);
      runner.startTransaction = (isolation) => {
        begun();
        return startTransaction(isolation);
      };
      return runner;
    });
    try {
      const a = stream();
      await path.run(context(), 'reject', async (session) => session.append(a, [noted(`a${(await session.load(a, notes)).state.length + 1}`)]));
      expect(begun).not.toHaveBeenCalled();
      const transactions = await path.run(context(), 'reject', async (session) => {
        const [first] = await session.query<{ xid: string }>(`select pg_current_xact_id()::text as xid`, []);
        const { state } = await session.load(a, notes);
        const [second] = await session.query<{ xid: string }>(`select pg_current_xact_id()::text as xid`, []);
        session.append(a, [noted(`a${state.length + 1}`)]);
        return [first.xid, second.xid];
      });
      expect(begun).toHaveBeenCalledTimes(1);
      expect(transactions[0]).toBe(transactions[1]);
      const [appended] = await dataSource.query(`select transaction_id::text as xid from events where stream_id = $1 and stream_version = 2`, [a.streamId]);
      expect(appended.xid).toBe(transactions[0]);
      expect(await read(a)).toEqual(['a1', 'a2']);
    } finally {
      spy.mockRestore();
    }
  });

  it('decides again on a fresh load as many times as its policy says, then answers version-conflict', async () => {
    const a = stream();
    await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
    let passes = 0;
    const racing = (conflicts: 'reject' | { retries: number }) =>
      path.run(context(), conflicts, async (session) => {
        const { state } = await session.load(a, notes);
        // The first pass loses a race; the others see its winner and decide on it.
        if (passes++ === 0)
          await store.append(
            [
              {
                stream: a,
                expectedVersion: state.length,
                events: [{ eventId: randomUUID(), type: 'Noted', schemaVersion: 1, data: { note: 'winner' }, occurredAt: new Date() }],
              },
            ],
            context().metadata,
          );
        return session.append(a, [noted(`after ${state[state.length - 1]}`)]);
      });
    expect(await racing({ retries: 1 })).toBe(3);
    expect(passes).toBe(2);
    expect(await read(a)).toEqual(['a1', 'winner', 'after winner']);
    passes = 0;
    await expect(racing('reject')).rejects.toMatchObject({ code: 'version-conflict' });
    expect(passes).toBe(1);
  });

  it("never decides again over a client's If-Match", async () => {
    const a = stream();
    await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
    await path.handle(a, notes, () => [noted('a2')], context());
    await expect(path.handle(a, notes, () => [noted('late')], context(), { expectedVersion: 1, conflicts: { retries: 3 } })).rejects.toMatchObject({
      code: 'version-conflict',
    });
    expect(await read(a)).toEqual(['a1', 'a2']);
  });

  it("decides again when another stream than the one the client's If-Match named moved, checking the If-Match again", async () => {
    const [pinned, other] = [stream(), stream()];
    await path.handle(pinned, notes, () => [noted('p1')], context(), { newStream: true });
    await path.handle(other, notes, () => [noted('o1')], context(), { newStream: true });
    let passes = 0;
    const command = (expectedVersion: number, moveBefore: StreamRef) =>
      path.run(context(), { retries: 2 }, async (session) => {
        await session.load(pinned, notes, expectedVersion);
        const { state } = await session.load(other, notes);
        // The first pass loses a race on `moveBefore`.
        if (passes++ === 0) {
          const moved = (await path.load(moveBefore, notes)).state.length;
          await store.append(
            [
              {
                stream: moveBefore,
                expectedVersion: moved,
                events: [{ eventId: randomUUID(), type: 'Noted', schemaVersion: 1, data: { note: 'winner' }, occurredAt: new Date() }],
              },
            ],
            context().metadata,
          );
        }
        session.append(pinned, [noted('p2')]);
        return session.append(other, [noted(`after ${state[state.length - 1]}`)]);
      });
    expect(await command(1, other)).toBe(3);
    expect(passes).toBe(2);
    expect(await read(other)).toEqual(['o1', 'winner', 'after winner']);
    passes = 0;
    // The If-Match's own stream moved: the client's conflict, answered at once.
    await expect(command(2, pinned)).rejects.toMatchObject({ code: 'version-conflict' });
    expect(passes).toBe(1);
    expect(await read(pinned)).toEqual(['p1', 'p2', 'winner']);
  });

  it('commits a command in steps, each its own pass: a later step that fails leaves the earlier ones recorded', async () => {
    const a = stream();
    await path.run(context(), 'reject', async (session) => session.append(a, [noted('pending')]));
    const outside = await read(a);
    await expect(
      path.run(context(), 'reject', async (session) => {
        session.append(a, [noted('outcome')]);
        throw new Error('the outcome could not be recorded');
      }),
    ).rejects.toThrow('could not be recorded');
    expect(outside).toEqual(['pending']);
    expect(await read(a)).toEqual(['pending']);
    await path.run(context(), 'reject', async (session) =>
      session.append(a, (await session.load(a, notes)).state.includes('pending') ? [noted('outcome')] : []),
    );
    expect(await read(a)).toEqual(['pending', 'outcome']);
  });

  describe('a unit of work that stages its appends', () => {
    const events = (ref: StreamRef) =>
      dataSource.query(
        `select stream_version, data->>'note' as note, metadata->>'correlationId' as correlation from events where stream_id = $1 order by stream_version`,
        [ref.streamId],
      );

    it('holds every command’s appends until it commits, shows them to its loads, and writes them with each command’s metadata', async () => {
      const [a, b, c] = [stream(), stream(), stream()];
      await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
      const [first, second] = [context(), context()];
      const written: WrittenStream[] = [];
      const seen = await path.atomically(
        async () => {
          await path.handle(a, notes, (state) => [noted(`a${state.length + 1}`)], first);
          await path.run(second, 'reject', async (session) => {
            const loaded = await session.load(a, notes);
            session.append(a, [noted(`a${loaded.state.length + 1}`)]);
            session.append(b, [noted('b1'), noted('b2')]);
          });
          await path.handle(c, notes, () => [noted('c1')], first, { newStream: true });
          // Nothing is in the log before the commit: the loads of the unit see what it staged.
          expect(await events(b)).toEqual([]);
          return (await path.load(a, notes)).state;
        },
        written,
        { stageAppends: true },
      );
      expect(seen).toEqual(['a1', 'a2', 'a3']);
      expect(await events(a)).toEqual([
        { stream_version: 1, note: 'a1', correlation: expect.any(String) },
        { stream_version: 2, note: 'a2', correlation: first.metadata.correlationId },
        { stream_version: 3, note: 'a3', correlation: second.metadata.correlationId },
      ]);
      expect(await read(b)).toEqual(['b1', 'b2']);
      expect(await read(c)).toEqual(['c1']);
      expect(written).toEqual([{ streamType: 'note', position: { transactionId: expect.any(String), globalPosition: expect.any(String) } }]);
      const [last] = await dataSource.query(`select max(global_position)::text as position from events where stream_id = any($1)`, [
        [a.streamId, b.streamId, c.streamId],
      ]);
      expect(written[0].position.globalPosition).toBe(last.position);
    });

    it('drops what a failing part (a savepoint) staged, and commits the rest', async () => {
      const [a, b] = [stream(), stream()];
      await path.atomically(
        async () => {
          await path.run(context(), 'reject', async (session) => session.append(a, [noted('kept')]));
          await expect(
            path.run(context(), 'reject', async (session) => {
              session.append(b, [noted('dropped')]);
              session.append(a, [noted('dropped too')]);
              throw new Error('this part fails');
            }),
          ).rejects.toThrow('this part fails');
          await path.run(context(), 'reject', async (session) => session.append(a, [noted(`after ${(await session.load(a, notes)).state.join()}`)]));
        },
        undefined,
        { stageAppends: true },
      );
      expect(await read(a)).toEqual(['kept', 'after kept']);
      expect(await read(b)).toEqual([]);
    });

    it('loads streams read ahead without a statement, and takes a part’s savepoint only before the part’s first statement', async () => {
      const [a, b] = [stream(), stream()];
      const claim = randomUUID();
      await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
      let connection: { query: (...args: unknown[]) => Promise<unknown> } | undefined;
      let query: ((...args: unknown[]) => Promise<unknown>) | undefined;
      const sent: string[] = [];
      try {
        await path.atomically(
          async (unit) => {
            // Every statement the unit's connection is asked for, from here on.
            connection = (unit.manager.queryRunner as unknown as { databaseConnection: NonNullable<typeof connection> }).databaseConnection;
            query = connection.query;
            connection.query = (...args: unknown[]) => {
              sent.push(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text);
              return query!.apply(connection, args);
            };
            await path.preload([a, b]);
            expect(sent).toHaveLength(1);
            // Parts that only load what was read ahead and stage their appends make no statement at all.
            await path.run(context(), 'reject', async (session) => session.append(a, [noted(`a${(await session.load(a, notes)).state.length + 1}`)]));
            await path.run(context(), 'reject', async (session) => session.append(b, [noted(`b${(await session.load(b, notes)).state.length + 1}`)]));
            expect(sent).toHaveLength(1);
            // A part that writes and then fails: its savepoint went ahead of its write, which is rolled back with it.
            await expect(
              path.run(context(), 'reject', async (session) => {
                session.append(a, [noted('dropped')]);
                await session.query(`insert into command_path_numbers (environment_id, last) values ($1, 1)`, [claim]);
                throw new Error('this part fails');
              }),
            ).rejects.toThrow('this part fails');
            // A part whose statement fails in Postgres leaves the unit's transaction usable.
            await expect(path.run(context(), 'reject', async (session) => session.query(`select 1 / 0`, []))).rejects.toThrow(/division by zero/);
            await path.run(context(), 'reject', async (session) => session.append(a, [noted(`a${(await session.load(a, notes)).state.length + 1}`)]));
          },
          undefined,
          { stageAppends: true },
        );
      } finally {
        if (connection && query) connection.query = query;
      }
      const savepoints = sent.filter((sql) => /^savepoint /.test(sql));
      expect(savepoints).toHaveLength(2);
      expect(sent.filter((sql) => /^rollback to savepoint /.test(sql))).toHaveLength(2);
      // The one read of the streams is the read ahead.
      expect(sent.filter((sql) => /from events/.test(sql))).toHaveLength(1);
      expect(await read(a)).toEqual(['a1', 'a2', 'a3']);
      expect(await read(b)).toEqual(['b1']);
      expect(await dataSource.query(`select * from command_path_numbers where environment_id = $1`, [claim])).toEqual([]);
    });

    it('reads streams ahead only for a unit that stages its appends', async () => {
      await expect(path.atomically(() => path.preload([stream()]))).rejects.toThrow('only a unit that stages its appends keeps streams read ahead');
    });

    it('writes nothing and names the stream when another writer moved it before the commit', async () => {
      const [a, b] = [stream(), stream()];
      await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
      const attempt = path.atomically(
        async () => {
          await path.handle(b, notes, () => [noted('b1')], context(), { newStream: true });
          await path.handle(a, notes, () => [noted('mine')], context());
          // Another writer, outside the unit, after the unit loaded the stream.
          await outsideUnitOfWork(() => path.handle(a, notes, () => [noted('other')], context()));
        },
        undefined,
        { stageAppends: true },
      );
      await expect(attempt).rejects.toMatchObject({ stream: a, code: 'version-conflict' });
      expect(await read(a)).toEqual(['a1', 'other']);
      expect(await read(b)).toEqual([]);
    });

    it('refuses an append that does not follow on what the unit staged for the stream', async () => {
      const a = stream();
      await expect(
        path.atomically(
          async () => {
            await path.handle(a, notes, () => [noted('first')], context(), { newStream: true });
            await path.handle(a, notes, () => [noted('second')], context(), { newStream: true });
          },
          undefined,
          { stageAppends: true },
        ),
      ).rejects.toMatchObject({ stream: a, code: 'stream-exists' });
      expect(await read(a)).toEqual([]);
    });
  });

  describe('a request with an Idempotency-Key (answered)', () => {
    const subject = 'user-1';
    const answerOf = (key: string, body = '{}'): RequestAnswer => ({
      environmentId,
      subject,
      key,
      fingerprint: 'f',
      method: 'POST',
      path: '/notes',
      status: 201,
      headers: { 'content-type': 'application/json' },
      body,
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const storedBody = async (key: string): Promise<string | undefined> =>
      (await dataSource.query(`select body from idempotency_keys where environment_id = $1 and subject = $2 and key = $3`, [environmentId, subject, key]))[0]
        ?.body;
    const transactionsOf = async (refs: readonly StreamRef[]): Promise<string[]> =>
      (await dataSource.query(`select distinct transaction_id::text as tx from events where stream_id = any($1)`, [refs.map((ref) => ref.streamId)])).map(
        (row: { tx: string }) => row.tx,
      );

    it('commits the events of requests that began no transaction with their answers, and a plain write beside them, in one statement', async () => {
      const [a, b, c] = [stream(), stream(), stream()];
      const [k1, k2] = [randomUUID(), randomUUID()];
      const answers = await Promise.all([
        path.answered(async () => {
          await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
          return answerOf(k1, 'first');
        }),
        path.answered(async () => {
          await path.handle(b, notes, () => [noted('b1')], context(), { newStream: true });
          return answerOf(k2, 'second');
        }),
        path.handle(c, notes, () => [noted('c1')], context(), { newStream: true }),
      ]);
      expect(answers.slice(0, 2).map((answer) => (answer as RequestAnswer).body)).toEqual(['first', 'second']);
      expect([await read(a), await read(b), await read(c)]).toEqual([['a1'], ['b1'], ['c1']]);
      expect([await storedBody(k1), await storedBody(k2)]).toEqual(['first', 'second']);
      expect(await transactionsOf([a, b, c])).toHaveLength(1);
    });

    it('commits nothing of a request whose key another request answered first (grouped or alone), and the others of its group', async () => {
      const [a, b] = [stream(), stream()];
      const key = randomUUID();
      expect(await store.recordAnswer(answerOf(key, 'the twin'))).toBe(true);
      const [twin, other] = await Promise.allSettled([
        path.answered(async () => {
          await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
          return answerOf(key, 'mine');
        }),
        path.handle(b, notes, () => [noted('b1')], context(), { newStream: true }),
      ]);
      expect(twin).toMatchObject({ status: 'rejected', reason: expect.any(RequestAnsweredBeforeError) });
      expect(other.status).toBe('fulfilled');
      await expect(
        path.answered(async () => {
          await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
          return answerOf(key, 'mine again');
        }),
      ).rejects.toBeInstanceOf(RequestAnsweredBeforeError);
      expect(await read(a)).toEqual([]);
      expect(await read(b)).toEqual(['b1']);
      expect(await storedBody(key)).toBe('the twin');
    });

    it('stores the answer in the transaction that the request began with a read of its own, and nothing when the request fails', async () => {
      const a = stream();
      const key = randomUUID();
      await dataSource.query(`insert into command_path_numbers values ($1, 0) on conflict (environment_id) do update set last = 0`, [environmentId]);
      const takeNumber = () =>
        path.run(context(), 'reject', async (session) => {
          const [row] = await session.query<{ last: number }>(`update command_path_numbers set last = last + 1 where environment_id = $1 returning last`, [
            environmentId,
          ]);
          return session.append(a, [noted(`number ${row.last}`)]);
        });
      await expect(
        path.answered(async () => {
          await takeNumber();
          throw new Error('the request fails after its read');
        }),
      ).rejects.toThrow('the request fails after its read');
      await path.answered(async () => {
        await takeNumber();
        return answerOf(key, 'numbered');
      });
      expect(await read(a)).toEqual(['number 1']);
      expect(await storedBody(key)).toBe('numbered');
    });

    it("runs the request again when a stream it appended to moved before its commit, as the command's policy allows", async () => {
      for (const [conflicts, outcome] of [
        [{ retries: 1 }, 'fulfilled'],
        ['reject', 'rejected'],
      ] as const) {
        const a = stream();
        await path.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
        let attempts = 0;
        const result = await Promise.allSettled([
          path.answered(async () => {
            attempts++;
            await path.handle(a, notes, (state) => [noted(`mine after ${state.join()}`)], context(), { conflicts });
            // Another writer, after the request loaded the stream, the first time only.
            if (attempts === 1) await outsideUnitOfWork(() => path.handle(a, notes, () => [noted('other')], context()));
            return answerOf(randomUUID());
          }),
        ]);
        expect(result[0].status).toBe(outcome);
        expect(attempts).toBe(outcome === 'fulfilled' ? 2 : 1);
        expect(await read(a)).toEqual(outcome === 'fulfilled' ? ['a1', 'other', 'mine after a1,other'] : ['a1', 'other']);
      }
    });
  });

  describe('read models written ahead', () => {
    const name = `ahead-${randomUUID()}`;
    const aheadStream = (): StreamRef => ({ environmentId, streamType: 'note-ahead', streamId: randomUUID() });
    /** Writes ahead every stream's notes but those of a stream noted "not ahead"; its batches never get the lock (held below). */
    const projection: Projection = {
      name,
      streamTypes: ['note-ahead'],
      tables: [],
      applyBatch: async () => undefined,
      reset: async () => undefined,
      writeAhead: {
        streamType: 'note-ahead',
        row: (ref, state, version) => ((state as string[]).includes('not ahead') ? null : { stream_id: ref.streamId, version, notes: state }),
        write: async (rows, manager) => {
          await manager.query(
            `insert into command_path_ahead select * from jsonb_to_recordset($1::jsonb) as r(stream_id uuid, version int, notes jsonb)
             on conflict (stream_id) do update set version = excluded.version, notes = excluded.notes where command_path_ahead.version < excluded.version`,
            [JSON.stringify(rows)],
          );
        },
      },
    };
    let aheadPath: CommandPath;
    let runner: ProjectionRunner;
    const held = () => dataSource.createQueryRunner();
    let holder: ReturnType<typeof held>;
    const row = async (ref: StreamRef) =>
      (await dataSource.query(`select version, notes from command_path_ahead where stream_id = $1`, [ref.streamId]))[0] as
        { version: number; notes: string[] } | undefined;

    beforeAll(async () => {
      await dataSource.query(`create table if not exists command_path_ahead (stream_id uuid primary key, version int not null, notes jsonb not null)`);
      runner = new ProjectionRunner(dataSource, store, { readModelTimeoutMs: 300 });
      runner.registerProjection(projection);
      await runner.start(databaseUrl, { runContinuously: false });
      aheadPath = new CommandPath(dataSource, store, runner);
      // The projection's batches never run: a command that waited for it would time out.
      holder = held();
      await holder.connect();
      await holder.startTransaction();
      await holder.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
    });

    afterAll(async () => {
      await holder.rollbackTransaction();
      await holder.release();
      await runner.stop();
    });

    it('answers a one-stream command once its row is written ahead, without waiting for the projection, keyed or not', async () => {
      const [a, b] = [aheadStream(), aheadStream()];
      await aheadPath.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
      await aheadPath.handle(a, notes, (state) => [noted(`a${state.length + 1}`)], context());
      expect(await row(a)).toEqual({ version: 2, notes: ['a1', 'a2'] });
      await aheadPath.answered(async () => {
        await aheadPath.handle(b, notes, () => [noted('b1')], context(), { newStream: true });
        return {
          environmentId,
          subject: 'user-1',
          key: randomUUID(),
          fingerprint: 'f',
          method: 'POST',
          path: '/notes',
          status: 201,
          headers: {},
          body: '',
          createdAt: new Date(),
          expiresAt: new Date(Date.now() + 60_000),
        };
      });
      expect(await row(b)).toEqual({ version: 1, notes: ['b1'] });
    });

    it('waits for the projection when the row cannot be written ahead (here: the read-model timeout, its batches being held)', async () => {
      const a = aheadStream();
      await expect(aheadPath.handle(a, notes, () => [noted('not ahead')], context(), { newStream: true })).rejects.toBeInstanceOf(ReadModelTimeoutError);
      expect(await row(a)).toBeUndefined();
      // Committed all the same.
      expect(await read(a)).toEqual(['not ahead']);
    });

    it('never takes a row written ahead back to an older version (two commands on one stream, rows of one turn)', async () => {
      const a = aheadStream();
      await aheadPath.handle(a, notes, () => [noted('a1')], context(), { newStream: true });
      await Promise.all([runner.writeAhead(a, ['a1', 'a2'], 2), runner.writeAhead(a, ['a1'], 1)]);
      expect(await row(a)).toEqual({ version: 2, notes: ['a1', 'a2'] });
    });
  });
});
