import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createTestDataSource, TestDatabase } from '@billing/testing';
import { EventStore } from './event-store';
import { StreamVersionConflictError } from './errors';
import { EventMetadata, NewEvent, StreamRef, ZERO_POSITION } from './types';

const metadata: EventMetadata = { actor: 'user-1', requestId: 'req-1', correlationId: 'corr-1', causationId: null };

function event(type = 'ThingHappened', data: unknown = {}): NewEvent {
  return { eventId: randomUUID(), type, schemaVersion: 1, data, occurredAt: new Date('2026-01-02T03:04:05Z') };
}

function stream(): StreamRef {
  return { environmentId: randomUUID(), streamType: 'thing', streamId: randomUUID() };
}

describe('EventStore (Postgres)', () => {
  let database: TestDatabase;
  let close: () => Promise<void>;
  let dataSource: DataSource;
  let store: EventStore;

  beforeAll(async () => {
    ({ database, dataSource, close } = await createTestDataSource());
    store = new EventStore(dataSource);
  });

  afterAll(async () => {
    await close();
  });

  it('stores every event with its stream, version, type, schema version, data, metadata and time', async () => {
    const ref = stream();
    const appended = event('ThingCreated', { name: 'a' });
    const result = await store.append([{ stream: ref, expectedVersion: 'no_stream', events: [appended] }], metadata);
    expect(result.nextVersions).toEqual([1]);
    const [recorded] = await store.readStream(ref);
    expect(recorded).toMatchObject({
      ...ref,
      eventId: appended.eventId,
      streamVersion: 1,
      type: 'ThingCreated',
      schemaVersion: 1,
      data: { name: 'a' },
      metadata,
      occurredAt: appended.occurredAt,
    });
    expect(BigInt(recorded.globalPosition)).toBeGreaterThan(0n);
    expect(BigInt(recorded.transactionId)).toBeGreaterThan(0n);
  });

  it('reads streams loaded at the same moment with shared statements, each its own events in version order', async () => {
    const refs = [stream(), stream(), stream()];
    await store.append([{ stream: refs[0], expectedVersion: 'no_stream', events: [event('A1'), event('A2')] }], metadata);
    await store.append([{ stream: refs[1], expectedVersion: 'no_stream', events: [event('B1')] }], metadata);
    await store.append([{ stream: refs[0], expectedVersion: 2, events: [event('A3')] }], metadata);
    const upperCase = { ...refs[1], environmentId: refs[1].environmentId.toUpperCase(), streamId: refs[1].streamId.toUpperCase() };
    const read = await Promise.all([...refs, upperCase, refs[0]].map((ref) => store.readStream(ref)));
    expect(read.map((events) => events.map((recorded) => `${recorded.type}@${recorded.streamVersion}`))).toEqual([
      ['A1@1', 'A2@2', 'A3@3'],
      ['B1@1'],
      [],
      ['B1@1'],
      ['A1@1', 'A2@2', 'A3@3'],
    ]);
    // A malformed id fails on its own statement; the loads beside it are answered.
    const [malformed, fine] = await Promise.allSettled([store.readStream({ ...refs[0], streamId: 'not-a-uuid' }), store.readStream(refs[1])]);
    expect(malformed.status).toBe('rejected');
    expect(fine).toEqual({ status: 'fulfilled', value: read[1] });
  });

  it('reads several whole streams in one statement, each as readStream answers it, in the order asked, inside a transaction too', async () => {
    const refs = [stream(), stream(), stream()];
    await store.append([{ stream: refs[0], expectedVersion: 'no_stream', events: [event('A1'), event('A2')] }], metadata);
    await store.append([{ stream: refs[2], expectedVersion: 'no_stream', events: [event('C1')] }], metadata);
    const asked = [refs[2], refs[1], refs[0], { ...refs[0], streamId: refs[0].streamId.toUpperCase() }];
    const expected = await Promise.all(asked.map((ref) => store.readStream(ref)));
    expect(await store.readStreams(asked)).toEqual(expected);
    expect(expected.map((events) => events.map((recorded) => recorded.type))).toEqual([['C1'], [], ['A1', 'A2'], ['A1', 'A2']]);
    // A transaction's own append is seen by its read.
    await dataSource.transaction(async (tx) => {
      await store.append([{ stream: refs[1], expectedVersion: 'no_stream', events: [event('B1')] }], metadata, tx);
      expect((await store.readStreams([refs[1]], tx))[0].map((recorded) => recorded.type)).toEqual(['B1']);
    });
    expect(await store.readStreams([])).toEqual([]);
  });
  it('rejects creating a stream that exists', async () => {
    const ref = stream();
    await store.append([{ stream: ref, expectedVersion: 'no_stream', events: [event()] }], metadata);
    await expect(store.append([{ stream: ref, expectedVersion: 'no_stream', events: [event()] }], metadata)).rejects.toMatchObject({
      code: 'stream-exists',
      kind: 'conflict',
    });
  });

  it('rejects an append with a stale expected version and keeps the log unchanged', async () => {
    const ref = stream();
    await store.append([{ stream: ref, expectedVersion: 'no_stream', events: [event()] }], metadata);
    await store.append([{ stream: ref, expectedVersion: 1, events: [event()] }], metadata);
    await expect(store.append([{ stream: ref, expectedVersion: 1, events: [event()] }], metadata)).rejects.toBeInstanceOf(StreamVersionConflictError);
    expect((await store.readStream(ref)).map((e) => e.streamVersion)).toEqual([1, 2]);
  });

  it('lets exactly one of two concurrent writers from the same version win', async () => {
    const ref = stream();
    await store.append([{ stream: ref, expectedVersion: 'no_stream', events: [event()] }], metadata);
    const outcomes = await Promise.allSettled([
      store.append([{ stream: ref, expectedVersion: 1, events: [event('A')] }], metadata),
      store.append([{ stream: ref, expectedVersion: 1, events: [event('B')] }], metadata),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(StreamVersionConflictError);
    expect(await store.readStream(ref)).toHaveLength(2);
  });

  it('refuses an append from a transaction older than the stream’s last append (its events would sort before ones they follow), alone or staged', async () => {
    for (const staged of [false, true]) {
      const ref = stream();
      await store.append([{ stream: ref, expectedVersion: 'no_stream', events: [event()] }], metadata);
      const older = dataSource.createQueryRunner();
      await older.connect();
      try {
        await older.startTransaction();
        // The older transaction takes its id first (as a row lock would), a younger one appends and commits, and only
        // then does the older one load the stream (at version 2) and append after it.
        await older.query(`select pg_current_xact_id()`);
        await store.append([{ stream: ref, expectedVersion: 1, events: [event('Younger')] }], metadata);
        const append = { stream: ref, expectedVersion: 2, events: [event('Older')] };
        const attempt = staged ? store.appendStaged(older.manager, [{ append, metadata }]) : store.append([append], metadata, older.manager);
        await expect(attempt).rejects.toBeInstanceOf(StreamVersionConflictError);
      } finally {
        await older.rollbackTransaction();
        await older.release();
      }
      // Decided again in a younger transaction, it appends.
      await store.append([{ stream: ref, expectedVersion: 2, events: [event('Again')] }], metadata);
      expect((await store.readStream(ref)).map((e) => e.type)).toEqual(['ThingHappened', 'Younger', 'Again']);
    }
  });

  it('appends to several streams atomically: one conflict rolls back all', async () => {
    const fresh = stream();
    const existing = stream();
    await store.append([{ stream: existing, expectedVersion: 'no_stream', events: [event()] }], metadata);
    await expect(
      store.append(
        [
          { stream: fresh, expectedVersion: 'no_stream', events: [event()] },
          { stream: existing, expectedVersion: 0, events: [event()] },
        ],
        metadata,
      ),
    ).rejects.toBeInstanceOf(StreamVersionConflictError);
    expect(await store.readStream(fresh)).toHaveLength(0);
  });

  it('writes a group of appends with one statement in one transaction, each with its own metadata', async () => {
    const [a, b, c] = [stream(), stream(), stream()];
    await store.append([{ stream: b, expectedVersion: 'no_stream', events: [event()] }], metadata);
    const other = { ...metadata, actor: 'user-2', requestId: 'req-2' };
    const written = await store.appendGroup([
      { append: { stream: a, expectedVersion: 'no_stream', events: [event(), event()] }, metadata },
      { append: { stream: b, expectedVersion: 1, events: [event()] }, metadata: other },
      { append: { stream: c, expectedVersion: 'no_stream', events: [event()] }, metadata },
    ]);
    expect(written.map((w) => w.streamType)).toEqual(['thing']);
    expect((await store.readStream(a)).map((e) => e.streamVersion)).toEqual([1, 2]);
    expect((await store.readStream(b)).map((e) => e.metadata.actor)).toEqual(['user-1', 'user-2']);
    const transactions = await dataSource.query(
      `select count(distinct transaction_id)::int as n from events where stream_id = any($1::uuid[]) and stream_version <> 1 or stream_id = any($2::uuid[])`,
      [[b.streamId], [a.streamId, c.streamId]],
    );
    expect(transactions[0].n).toBe(1);
  });

  it('writes nothing of a group, not even the other streams’ claims, when another writer moved one of its streams', async () => {
    const [a, b, c] = [stream(), stream(), stream()];
    await store.append([{ stream: b, expectedVersion: 'no_stream', events: [event(), event()] }], metadata);
    await expect(
      store.appendGroup([
        { append: { stream: a, expectedVersion: 'no_stream', events: [event()] }, metadata },
        { append: { stream: b, expectedVersion: 1, events: [event()] }, metadata },
        { append: { stream: c, expectedVersion: 'no_stream', events: [event()] }, metadata },
      ]),
    ).rejects.toMatchObject({ code: 'BL409' });
    expect(await store.readStream(a)).toEqual([]);
    expect((await store.readStream(b)).map((e) => e.streamVersion)).toEqual([1, 2]);
    const claims = await dataSource.query(`select count(*)::int as n from streams where stream_id = any($1::uuid[])`, [[a.streamId, c.streamId]]);
    expect(claims[0].n).toBe(0);
    // So the stream can still be created by its own append.
    await store.append([{ stream: a, expectedVersion: 'no_stream', events: [event()] }], metadata);
    expect((await store.readStream(a)).map((e) => e.streamVersion)).toEqual([1]);
  });

  it("is not held back by a transaction open in another database of the server: only this database's can append here", async () => {
    const elsewhere = new URL(database.url);
    elsewhere.pathname = '/postgres';
    const stranger = new Client({ connectionString: elsewhere.toString() });
    await stranger.connect();
    try {
      // A transaction in another database that has taken a transaction id, and stays open.
      await stranger.query('begin');
      await stranger.query('select pg_current_xact_id()');
      const ref = stream();
      const appended = event('AfterTheStranger');
      const { written } = await store.append([{ stream: ref, expectedVersion: 'no_stream', events: [appended] }], metadata);
      const before = { transactionId: String(BigInt(written[0].position.transactionId) - 1n), globalPosition: '0' };
      expect((await store.readAll(before, 10)).map((e) => e.eventId)).toContain(appended.eventId);
    } finally {
      await stranger.query('rollback');
      await stranger.end();
    }
  });

  it('never lets a subscriber skip an event whose transaction commits late', async () => {
    const lateRef = stream();
    const earlyRef = stream();
    // Open a transaction, append in it (taking the lower position and xid), and keep it open.
    const slow = new Client({ connectionString: database.url });
    await slow.connect();
    await slow.query('begin');
    const lateId = randomUUID();
    await slow.query(
      `insert into events (event_id, environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at)
       values ($1, $2, $3, $4, 1, 'Late', 1, '{}', '{}', now())`,
      [lateId, lateRef.environmentId, lateRef.streamType, lateRef.streamId],
    );
    // A later transaction commits first.
    const early = event('Early');
    await store.append([{ stream: earlyRef, expectedVersion: 'no_stream', events: [early] }], metadata);

    const seen: string[] = [];
    let checkpoint = ZERO_POSITION;
    const drain = async () => {
      for (;;) {
        const batch = await store.readAll(checkpoint, 100);
        if (batch.length === 0) return;
        for (const e of batch) seen.push(e.eventId);
        const last = batch[batch.length - 1];
        checkpoint = { transactionId: last.transactionId, globalPosition: last.globalPosition };
      }
    };
    // While the slow transaction is open, the reader must stop before the committed later event.
    await drain();
    expect(seen).not.toContain(early.eventId);
    expect(seen).not.toContain(lateId);

    await slow.query('commit');
    await slow.end();
    // Another transaction of this database (a parallel test's connection pool) may hold the horizon back for a
    // moment, so read until both arrived, within a deadline.
    for (const deadline = Date.now() + 10_000; !seen.includes(early.eventId) && Date.now() < deadline;) {
      await drain();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(seen.filter((id) => id === lateId)).toHaveLength(1);
    expect(seen.filter((id) => id === early.eventId)).toHaveLength(1);
    expect(seen.indexOf(lateId)).toBeLessThan(seen.indexOf(early.eventId));
  });

  it('reads in numeric log order where positions and transaction ids change their number of digits', async () => {
    // Text order would put 10000 before 9999: a batch would apply events out of order and its checkpoint
    // would skip or repeat some. Start the identity just below a power of ten and read in small batches.
    await dataSource.query(`alter table events alter column global_position restart with 9995`);
    // One transaction: ordering within it is by position alone.
    const events = Array.from({ length: 12 }, (_, i) => event('Counted', { i }));
    const appended = events.map((e) => e.eventId);
    await store.append(
      [{ stream: { environmentId: randomUUID(), streamType: 'digits', streamId: randomUUID() }, expectedVersion: 'no_stream', events }],
      metadata,
    );
    const seen: string[] = [];
    let checkpoint = ZERO_POSITION;
    for (let deadline = Date.now() + 10_000; seen.length < 12 && Date.now() < deadline;) {
      const batch = await store.readAll(checkpoint, 3, undefined, ['digits']);
      for (const e of batch) seen.push(e.eventId);
      if (batch.length > 0) checkpoint = { transactionId: batch[batch.length - 1].transactionId, globalPosition: batch[batch.length - 1].globalPosition };
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(seen).toEqual(appended);
  });
});
