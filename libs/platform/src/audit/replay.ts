import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { comparePositions, EventStore, LogPosition, Projection, ProjectionRunner, queryRows, ReadModelTable, ZERO_POSITION } from '@billing/event-store';
import { BoundedContext } from '../context/bounded-context';

/** The schema a replay rebuilds read models in; dropped before and after. */
export const REPLAY_SCHEMA = 'audit_replay';
const DIFFERENCES_SHOWN = 3;

export interface TableComparison {
  readonly table: string;
  readonly equal: boolean;
  /** Rows only in the live table, and only in the replayed one (as multisets). */
  readonly liveOnly: number;
  readonly replayOnly: number;
  /** The first differing rows of each side (in the order of `key`), as JSON. */
  readonly examples: readonly { readonly side: 'live' | 'replay'; readonly row: unknown }[];
  /** The columns that name a row: the table's primary key (all compared columns when it has none). */
  readonly key: readonly string[];
}

export interface ReplayReport {
  readonly projection: string;
  readonly events: number;
  readonly tables: readonly TableComparison[];
}

/** After each page of the one pass over the log that rebuilds every read model. */
export type ReplayProgress = (eventsDone: number, eventsTotal: number) => void;

/**
 * `npm run replay`: rebuilds every read model from the log into shadow
 * tables and compares them row by row with the live ones. The shadow tables
 * are `create table … (like <live> including all)` in REPLAY_SCHEMA; the
 * projections run unchanged on connections whose search_path puts that
 * schema first (their SQL names tables unqualified), under names of their
 * own (`replay:<name>`), so neither their locks nor their checkpoints touch
 * the live ones. Writers and runners may go on meanwhile: each read model is
 * compared at one position of the log (see atOnePosition).
 */
export async function replayReadModels(options: {
  readonly dataSource: DataSource;
  readonly databaseUrl: string;
  readonly contexts: readonly BoundedContext[];
  readonly progress?: ReplayProgress;
}): Promise<ReplayReport[]> {
  const { dataSource, contexts } = options;
  const projections = contexts.flatMap((context) => context.projections);
  const [{ schema: liveSchema }] = await queryRows<{ schema: string }>(dataSource.manager, `select current_schema() as schema`);
  await dataSource.query(`drop schema if exists ${REPLAY_SCHEMA} cascade`);
  await dataSource.query(`create schema ${REPLAY_SCHEMA}`);
  const shadow = new DataSource({
    type: 'postgres',
    url: options.databaseUrl,
    extra: { max: 2, options: `-c search_path=${REPLAY_SCHEMA},${liveSchema}` },
  });
  try {
    await dataSource.query(`create table ${REPLAY_SCHEMA}.projection_checkpoints (like ${liveSchema}.projection_checkpoints including all)`);
    for (const table of projections.flatMap((projection) => projection.tables.map(tableName))) {
      await dataSource.query(`create table ${REPLAY_SCHEMA}.${table} (like ${liveSchema}.${table} including all)`);
    }
    await shadow.initialize();
    const eventStore = new EventStore(shadow);
    const liveEventStore = new EventStore(dataSource);
    for (const stream of contexts.flatMap((context) => context.streams)) {
      if (stream.upcast) for (const store of [eventStore, liveEventStore]) store.registerUpcaster(stream.type, stream.upcast);
    }
    const runner = new ProjectionRunner(shadow, eventStore, { batchSize: 5000 });
    const liveRunner = new ProjectionRunner(dataSource, liveEventStore, { batchSize: 5000 });
    const applied = new Map<string, number>();
    const replicas = projections.map((projection) => {
      const replica: Projection = {
        ...projection,
        name: `replay:${projection.name}`,
        applyBatch: async (events, tx) => {
          await projection.applyBatch(events, tx);
          applied.set(projection.name, (applied.get(projection.name) ?? 0) + events.length);
        },
      };
      runner.registerProjection(replica);
      liveRunner.registerProjection(projection);
      return replica;
    });
    // Every read model in one pass over the log (as `npm run rebuild`), then each brought to its live one's position.
    await runner.rebuild(
      replicas.map((replica) => replica.name),
      { progress: ({ events, total }) => options.progress?.(events, total) },
    );
    const reports: ReplayReport[] = [];
    for (const [index, projection] of projections.entries()) {
      const tables = await atOnePosition(
        { dataSource, liveSchema, live: liveRunner, replay: runner, projection, replica: replicas[index].name },
        async (snapshot) => {
          const compared: TableComparison[] = [];
          for (const table of projection.tables) compared.push(await compare(snapshot, liveSchema, table));
          return compared;
        },
      );
      reports.push({ projection: projection.name, events: applied.get(projection.name) ?? 0, tables });
    }
    return reports;
  } finally {
    if (shadow.isInitialized) await shadow.destroy();
    await dataSource.query(`drop schema if exists ${REPLAY_SCHEMA} cascade`);
  }
}

/**
 * Drops the shadow schema of a replay that is being interrupted (a signal): first ends the sessions that hold its
 * tables (only a replay touches them), whose open transactions would otherwise keep the drop waiting. On its own
 * connection: the replay's pools may all be busy. A replay killed outright leaves the schema to the next one, which
 * drops it before it begins.
 */
export async function dropReplaySchema(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'billing-replay-cleanup' });
  await client.connect();
  try {
    await client.query(
      `select pg_terminate_backend(pid) from (select distinct l.pid from pg_locks l
         join pg_class c on c.oid = l.relation join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 and l.pid <> pg_backend_pid()) as holders`,
      [REPLAY_SCHEMA],
    );
    await client.query(`drop schema if exists ${REPLAY_SCHEMA} cascade`);
  } finally {
    await client.end();
  }
}

interface Alignment {
  readonly dataSource: DataSource;
  readonly liveSchema: string;
  readonly live: ProjectionRunner;
  readonly replay: ProjectionRunner;
  readonly projection: Projection;
  readonly replica: string;
}

/**
 * Runs `compare` in a snapshot where the live read model and its replay
 * stand at the same position of the log. The replay first follows the live
 * checkpoint without holding anything; then the live projection's lock is
 * taken (its runners wait, no writer does) and its checkpoint read, the
 * replay brought to exactly that position (the live one first caught up
 * when the replay is ahead of it), a repeatable-read snapshot taken and the
 * lock released, so neither the bulk of the catching up nor the comparison
 * holds anybody up.
 */
async function atOnePosition<Result>(at: Alignment, compare: (snapshot: EntityManager) => Promise<Result>): Promise<Result> {
  await replayTo(at, await checkpoint(at.dataSource.manager, at.liveSchema, at.projection.name), at.dataSource.manager);
  for (;;) {
    const lock = at.dataSource.createQueryRunner();
    await lock.connect();
    try {
      await lock.startTransaction();
      await lock.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${at.projection.name}`]);
      const live = await checkpoint(lock.manager, at.liveSchema, at.projection.name);
      if (comparePositions(await checkpoint(lock.manager, REPLAY_SCHEMA, at.replica), live) > 0) {
        // The live read model is behind the replay: a batch of it (as any runner would run one), then look again.
        await lock.commitTransaction();
        await at.live.runBatch(at.projection.name);
        continue;
      }
      await replayTo(at, live, lock.manager);
      const snapshot = at.dataSource.createQueryRunner();
      await snapshot.connect();
      try {
        await snapshot.startTransaction('REPEATABLE READ');
        await snapshot.query(`select 1`);
        await lock.commitTransaction();
        return await compare(snapshot.manager);
      } finally {
        if (snapshot.isTransactionActive) await snapshot.rollbackTransaction();
        await snapshot.release();
      }
    } finally {
      if (lock.isTransactionActive) await lock.rollbackTransaction();
      await lock.release();
    }
  }
}

/** Runs the replay up to `target` exactly (never past it). */
async function replayTo(at: Alignment, target: LogPosition, manager: EntityManager): Promise<void> {
  while (comparePositions(await checkpoint(manager, REPLAY_SCHEMA, at.replica), target) < 0) await at.replay.runBatch(at.replica, undefined, target);
}

async function checkpoint(manager: EntityManager, schema: string, name: string): Promise<LogPosition> {
  const [row] = await queryRows<{ transaction_id: string | null; global_position: string | null }>(
    manager,
    `select transaction_id::text, global_position::text from ${schema}.projection_checkpoints where name = $1`,
    [name],
  );
  return row?.transaction_id ? { transactionId: row.transaction_id, globalPosition: row.global_position! } : ZERO_POSITION;
}

function tableName(table: ReadModelTable): string {
  return typeof table === 'string' ? table : table.name;
}

/** The live table against its replay as multisets of rows (EXCEPT ALL both ways), leaving out `compareExcept`, `jsonText` as jsonb. */
async function compare(manager: EntityManager, liveSchema: string, table: ReadModelTable): Promise<TableComparison> {
  const name = tableName(table);
  const except = typeof table === 'string' ? [] : (table.compareExcept ?? []);
  const jsonText = typeof table === 'string' ? [] : (table.jsonText ?? []);
  const columns = (
    await queryRows<{ column_name: string }>(
      manager,
      `select column_name from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position`,
      [liveSchema, name],
    )
  )
    .map((row) => row.column_name)
    .filter((column) => !except.includes(column));
  const primaryKey = (
    await queryRows<{ column_name: string }>(
      manager,
      `select a.attname as column_name from pg_index i
         cross join lateral unnest(i.indkey) with ordinality as k(attnum, n)
         join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
        where i.indrelid = to_regclass($1) and i.indisprimary order by k.n`,
      [`${liveSchema}.${name}`],
    )
  )
    .map((row) => row.column_name)
    .filter((column) => columns.includes(column));
  const key = primaryKey.length > 0 ? primaryKey : columns;
  const quote = (column: string) => `"${column.replace(/"/g, '""')}"`;
  const list = columns.map((column) => (jsonText.includes(column) ? `${quote(column)}::jsonb as ${quote(column)}` : quote(column))).join(', ');
  // The first differing rows by key: a row that differs in a value shows on both sides under one key.
  const order = [...key, ...columns.filter((column) => !key.includes(column))].map(quote).join(', ');
  const live = `select ${list} from ${liveSchema}.${name}`;
  const replay = `select ${list} from ${REPLAY_SCHEMA}.${name}`;
  const side = async (first: string, second: string) => {
    const [{ count }] = await queryRows<{ count: number }>(manager, `select count(*)::int as count from (${first} except all ${second}) as differing`);
    const rows =
      count === 0
        ? []
        : await queryRows<{ row: unknown }>(
            manager,
            `select to_jsonb(differing) as row from (${first} except all ${second}) as differing order by ${order} limit ${DIFFERENCES_SHOWN}`,
          );
    return { count, rows: rows.map((row) => row.row) };
  };
  const liveOnly = await side(live, replay);
  const replayOnly = await side(replay, live);
  return {
    table: name,
    equal: liveOnly.count === 0 && replayOnly.count === 0,
    liveOnly: liveOnly.count,
    replayOnly: replayOnly.count,
    examples: [...liveOnly.rows.map((row) => ({ side: 'live' as const, row })), ...replayOnly.rows.map((row) => ({ side: 'replay' as const, row }))],
    key,
  };
}
