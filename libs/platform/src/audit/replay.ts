import { DataSource } from 'typeorm';
import { EventStore, Projection, ProjectionRunner, queryRows, ReadModelTable } from '@billing/event-store';
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
  /** The first differing rows of each side, as JSON. */
  readonly examples: readonly { readonly side: 'live' | 'replay'; readonly row: unknown }[];
}

export interface ReplayReport {
  readonly projection: string;
  readonly events: number;
  readonly tables: readonly TableComparison[];
}

export type ReplayProgress = (projection: string, eventsDone: number, eventsTotal: number) => void;

/**
 * `npm run replay`: rebuilds every read model from the log into shadow
 * tables and compares them row by row with the live ones. The shadow tables
 * are `create table … (like <live> including all)` in REPLAY_SCHEMA; the
 * projections run unchanged on connections whose search_path puts that
 * schema first (their SQL names tables unqualified), under names of their
 * own (`replay:<name>`), so neither their locks nor their checkpoints touch
 * the live ones. Run it on a quiet system: a write between the replay and
 * the comparison shows as a difference.
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
    for (const stream of contexts.flatMap((context) => context.streams)) if (stream.upcast) eventStore.registerUpcaster(stream.type, stream.upcast);
    const runner = new ProjectionRunner(shadow, eventStore, { batchSize: 5000 });
    const reports: ReplayReport[] = [];
    for (const projection of projections) {
      const [{ total }] = await queryRows<{ total: number }>(dataSource.manager, `select count(*)::int as total from events where stream_type = any($1::text[])`, [
        projection.streamTypes,
      ]);
      let done = 0;
      const replica: Projection = {
        ...projection,
        name: `replay:${projection.name}`,
        applyBatch: async (events, tx) => {
          await projection.applyBatch(events, tx);
          done += events.length;
          options.progress?.(projection.name, done, total);
        },
      };
      runner.registerProjection(replica);
      options.progress?.(projection.name, 0, total);
      await runner.rebuild(replica.name);
      const tables: TableComparison[] = [];
      for (const table of projection.tables) tables.push(await compare(dataSource, liveSchema, table));
      reports.push({ projection: projection.name, events: done, tables });
    }
    return reports;
  } finally {
    if (shadow.isInitialized) await shadow.destroy();
    await dataSource.query(`drop schema if exists ${REPLAY_SCHEMA} cascade`);
  }
}

function tableName(table: ReadModelTable): string {
  return typeof table === 'string' ? table : table.name;
}

/** The live table against its replay as multisets of rows (EXCEPT ALL both ways), leaving out `compareExcept`. */
async function compare(dataSource: DataSource, liveSchema: string, table: ReadModelTable): Promise<TableComparison> {
  const name = tableName(table);
  const except = typeof table === 'string' ? [] : table.compareExcept;
  const columns = (
    await queryRows<{ column_name: string }>(
      dataSource.manager,
      `select column_name from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position`,
      [liveSchema, name],
    )
  )
    .map((row) => row.column_name)
    .filter((column) => !except.includes(column));
  const list = columns.map((column) => `"${column.replace(/"/g, '""')}"`).join(', ');
  const live = `select ${list} from ${liveSchema}.${name}`;
  const replay = `select ${list} from ${REPLAY_SCHEMA}.${name}`;
  const side = async (first: string, second: string) => {
    const [{ count }] = await queryRows<{ count: number }>(dataSource.manager, `select count(*)::int as count from (${first} except all ${second}) as differing`);
    const rows = count === 0 ? [] : await queryRows<{ row: unknown }>(dataSource.manager, `select to_jsonb(differing) as row from (${first} except all ${second}) as differing limit ${DIFFERENCES_SHOWN}`);
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
  };
}
