import { EntityManager } from 'typeorm';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { connectedUnitOfWork } from './unit-of-work';

const statementNames = new Map<string, string>();

/** A stable name per statement text: pg prepares it once per connection and Postgres skips parse and plan after that. */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `billing_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * Runs SQL and returns the result rows whatever the statement, as a named
 * prepared statement (Postgres parses and plans it once per connection):
 * outside a transaction straight on the pool, inside one on the
 * transaction's connection, and inside an open unit of work on the unit's.
 * The hot paths (appends, stream reads, read-model reads) skip TypeORM's
 * per-query runner. Without a pg connection at hand (a connection not yet
 * made) it falls back to TypeORM, which answers UPDATE and DELETE with
 * `[rows, rowCount]` but everything else with `rows`.
 */
export async function queryRows<Row = Record<string, unknown>>(manager: EntityManager, sql: string, parameters: readonly unknown[] = []): Promise<Row[]> {
  if (!manager.queryRunner) manager = connectedUnitOfWork()?.manager ?? manager;
  // A transaction's connection, or the pool: either way a named prepared statement.
  const connection = manager.queryRunner
    ? (manager.queryRunner as unknown as { databaseConnection?: PoolClient }).databaseConnection
    : (manager.connection.driver as unknown as { master?: Pool }).master;
  if (connection) {
    const result: QueryResult = await connection.query({ name: statementName(sql), text: sql, values: parameters as unknown[] });
    return result.rows as Row[];
  }
  const result: unknown = await manager.query(sql, parameters as unknown[]);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as Row[];
  }
  return (result ?? []) as Row[];
}

/**
 * Many rows as one statement parameter: the rows as one JSON array (one `JSON.stringify`, sent as one text),
 * read back in SQL by `jsonRowsFrom`. Every multi-row write of a projection goes this way: an array parameter
 * (`$n::jsonb[]`, `$n::text[]`) makes pg escape each element into a Postgres array literal character by
 * character and measure the whole rope again, which was a fifth of a rebuild's Node time (docs/BENCHMARKS.md).
 * A row's keys are its column names; an `undefined` member and a JSON null read as SQL null (a `jsonb` column gets
 * null, not the JSON value `null`), a Date as its ISO text.
 */
export function jsonRows(rows: readonly object[]): string {
  return JSON.stringify(rows);
}

/**
 * The FROM item reading a `jsonRows` parameter (`$parameter`) as rows of these columns (`name type, …` in the
 * order a `select *` should give them). Read as `jsonb`: Postgres parses the text once and hands each `jsonb`
 * column its part as it is (`json_to_recordset` parsed every such part a second time, half as fast again
 * measured on 10 000 invoices). jsonb holds at most 255 MB: a rebuild's page of 20 000 events writes some 60.
 */
export function jsonRowsFrom(parameter: number, columns: string): string {
  return `jsonb_to_recordset($${parameter}::jsonb) as r(${columns})`;
}
