import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { comparePositions, EventMetadata, EventStore, Projection, queryRows, RecordedEvent, StreamRef, toNewEvents } from '@billing/event-store';
import { DomainEvent } from '@billing/shared-kernel';
import { createTestDataSource } from './test-database';

/**
 * Given/when/then for projections, as `deciderSpec` is for deciders (after emmett's projection specs):
 *
 *   const spec = projectionSpec(couponsProjection); // its own database, emptied before each test
 *   await spec.given(append(stream, [created])).when(append(stream, [updated])).thenRows(`select … from coupons`, [], [row]);
 *
 * Why not hand-built rows and a stub transaction: a projection is SQL against the app's migrated tables, and its
 * rows depend on what the event store gives it (positions, versions, the real clock). So the events are appended to
 * the real event store (which fills event ids, positions, versions, metadata) and handed in log order to the
 * projection's own `applyBatch` in one transaction, as the runner does; `given` and `when` are two batches, so a
 * `when` continues rows a batch before it stored.
 */

/** One append: a stream's domain events, written in one transaction at `at` (the environment's clock). */
export interface Given {
  readonly stream: StreamRef;
  readonly events: readonly DomainEvent[];
  readonly at?: string;
}

export const append = (stream: StreamRef, events: readonly DomainEvent[], at?: string): Given => ({ stream, events, at });

export type Query = <Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => Promise<Row[]>;

/** What a `then` sees: a query on the database, and the events as recorded (positions, versions), `given`'s then `when`'s. */
export type Then = (query: Query, events: { readonly given: RecordedEvent[]; readonly when: RecordedEvent[] }) => Promise<void>;

const METADATA: EventMetadata = { actor: 'test', requestId: null, correlationId: 'projection-spec', causationId: null };
export const SPEC_TIME = '2026-01-15T10:00:00.000Z';

export interface ProjectionSpec {
  given(...appends: readonly Given[]): Scenario;
  /** Appends and returns the recorded events, not applied: for specs that cut their own batches. */
  append(...appends: readonly Given[]): Promise<RecordedEvent[]>;
  /** Each batch in its own transaction; `wrap` may watch the transaction (count its statements). */
  apply(batches: readonly (readonly RecordedEvent[])[], wrap?: (tx: EntityManager, work: () => Promise<void>) => Promise<void>): Promise<void>;
  readonly query: Query;
  /** The spec's database, once its beforeAll ran. */
  dataSource(): DataSource;
}

export interface Scenario {
  /** A later batch (appended after `given` was applied), so the projection reads what it stored. */
  when(...appends: readonly Given[]): Scenario;
  /** Applies the last batch a second time, for a projection that claims idempotence: the same events again change nothing. */
  twice(): Scenario;
  then(check: Then): Promise<void>;
  thenRows(sql: string, params: readonly unknown[], expected: readonly unknown[]): Promise<void>;
}

/**
 * Call at a spec file's top level (or in a describe): registers the hooks that create, empty (with the projection's
 * own reset) and drop its database. `resetBeforeEach: false` for a spec whose tests build on one log (a runner's
 * checkpoint, a rebuild).
 */
export function projectionSpec(projection: Projection, { resetBeforeEach = true } = {}): ProjectionSpec {
  let source: DataSource | undefined;
  let close: () => Promise<void>;
  let store: EventStore;
  beforeAll(async () => {
    ({ dataSource: source, close } = await createTestDataSource());
    store = new EventStore(source);
  });
  afterAll(() => close());
  beforeEach(async () => {
    if (resetBeforeEach) await dataSource().transaction((tx) => projection.reset(tx));
  });
  const dataSource = (): DataSource => {
    if (!source) throw new Error('projectionSpec: its database exists only inside a test');
    return source;
  };

  const query: Query = (sql, params = []) => queryRows(dataSource().manager, sql, params);

  async function appendAll(...appends: readonly Given[]): Promise<RecordedEvent[]> {
    const recorded: RecordedEvent[] = [];
    for (const { stream, events, at = SPEC_TIME } of appends) {
      const before = (await store.readStream(stream)).length;
      const meta = { now: new Date(at), newId: randomUUID };
      await store.append([{ stream, expectedVersion: before === 0 ? 'no_stream' : before, events: toNewEvents(events, meta) }], METADATA);
      recorded.push(...(await store.readStream(stream)).slice(before));
    }
    return recorded.sort(comparePositions);
  }

  async function apply(batches: readonly (readonly RecordedEvent[])[], wrap = (_tx: EntityManager, work: () => Promise<void>) => work()): Promise<void> {
    for (const batch of batches) await dataSource().transaction((tx) => wrap(tx, () => projection.applyBatch(batch, tx)));
  }

  function scenario(given: readonly Given[], when: readonly Given[] | null, times: number): Scenario {
    const run = async (check: Then) => {
      const givenEvents = await appendAll(...given);
      await apply([givenEvents]);
      const whenEvents = when ? await appendAll(...when) : [];
      if (when) await apply([whenEvents]);
      for (let again = 1; again < times; again++) await apply([when ? whenEvents : givenEvents]);
      await check(query, { given: givenEvents, when: whenEvents });
    };
    return {
      when: (...appends) => scenario(given, appends, times),
      twice: () => scenario(given, when, 2),
      then: run,
      thenRows: (sql, params, expected) =>
        run(async (q) => {
          expect(await q(sql, params)).toEqual(expected);
        }),
    };
  }

  return { given: (...appends) => scenario(appends, null, 1), append: appendAll, apply, query, dataSource };
}
