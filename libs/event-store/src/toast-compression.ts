import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SQL for a migration: these columns (jsonb, or JSON text) compressed with lz4 where this Postgres was built with it (its
 * `default_toast_compression` offers it), else left as they are (pglz). A read model's documents of 1–3 KB are
 * compressed on every write, and a rebuild writes each again: lz4 took 15 % off Postgres's CPU when rebuilding
 * `invoices` (docs/BENCHMARKS.md). Rows keep how they were stored until they are written again; a value reads the
 * same either way.
 */
export function lz4WherePossible(table: string, columns: readonly string[]): string {
  return `do $$ begin
    if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) then
      alter table ${table} ${columns.map((column) => `alter column ${column} set compression lz4`).join(', ')};
    end if;
  end $$`;
}

/** The undoing of lz4WherePossible: the server's default compression again. */
function defaultCompression(table: string, columns: readonly string[]): string {
  return `alter table ${table} ${columns.map((column) => `alter column ${column} set compression default`).join(', ')}`;
}

/** A migration compressing a read model's jsonb columns with lz4 where possible (lz4WherePossible); down: the default again. */
export function lz4Migration(name: string, table: string, columns: readonly string[]): new () => MigrationInterface {
  return class implements MigrationInterface {
    name = name;

    async up(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(lz4WherePossible(table, columns));
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(defaultCompression(table, columns));
    }
  };
}
