import { EntityManager } from 'typeorm';

/**
 * Runs SQL and returns the result rows whatever the statement: TypeORM answers
 * UPDATE and DELETE with `[rows, rowCount]` but everything else with `rows`.
 */
export async function queryRows<Row = Record<string, unknown>>(
  manager: EntityManager,
  sql: string,
  parameters: readonly unknown[] = [],
): Promise<Row[]> {
  const result: unknown = await manager.query(sql, parameters as unknown[]);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as Row[];
  }
  return (result ?? []) as Row[];
}
