import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `request_answered_before()` fails the statement that calls it (SQLSTATE BL412): a group of appends written by
 * one statement outside a transaction (EventStore.appendGroup) calls it when the answer of one of its keyed
 * requests could not be stored because another request with the same Idempotency-Key stored its answer first, so
 * that request's events are not written either (nor, the statement being one, anyone else's in the group, which
 * are then written again without it).
 */
export class CreateRequestAnsweredBefore1764600900000 implements MigrationInterface {
  name = 'CreateRequestAnsweredBefore1764600900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create function request_answered_before() returns integer language plpgsql as $$
      begin
        raise exception 'another request with the same idempotency key stored its answer first' using errcode = 'BL412';
      end $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop function request_answered_before()`);
  }
}
