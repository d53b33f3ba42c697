/** The comparison operators a list's `filter=field op value` takes. */
export type FilterOperator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';

const OPERATORS: Readonly<Record<FilterOperator, string>> = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' };

/** One parsed filter: the column it names comes from the caller's map, never from the request. */
export interface ColumnFilter<Field extends string> {
  readonly field: Field;
  readonly op: FilterOperator;
  readonly value: string | number | Date;
}

/**
 * The WHERE conditions of a list scoped to an environment (`$1`) and
 * filtered by `field op value` filters combined with and: every value a
 * parameter, every column from `columns`.
 */
export function filterConditions<Field extends string>(
  environmentId: string,
  filters: readonly ColumnFilter<Field>[],
  columns: Readonly<Record<Field, string>>,
): { params: unknown[]; where: string[] } {
  const params: unknown[] = [environmentId];
  const where = ['environment_id = $1'];
  for (const filter of filters) {
    params.push(filter.value instanceof Date ? filter.value.toISOString() : filter.value);
    where.push(`${columns[filter.field]} ${OPERATORS[filter.op]} $${params.length}`);
  }
  return { params, where };
}
