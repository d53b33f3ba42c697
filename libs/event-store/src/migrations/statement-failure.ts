import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A migration creating a SQL function that fails the statement calling it with `errcode` (plain SQL cannot raise
 * an error of its own): what a one-statement write calls when a condition of its own fails it whole.
 */
export function statementFailureMigration(name: string, fn: string, errcode: string, message: string): new () => MigrationInterface {
  return class implements MigrationInterface {
    name = name;

    async up(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`
        create function ${fn}() returns integer language plpgsql as $$
        begin
          raise exception '${message}' using errcode = '${errcode}';
        end $$`);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`drop function ${fn}()`);
    }
  };
}
