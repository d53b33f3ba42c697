import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `events_group_moved()` fails the statement that calls it (SQLSTATE BL409): a group of appends written by one
 * statement outside a transaction (EventStore.appendGroup) calls it when one of its streams was moved by another
 * writer, so the whole statement, the other streams' claims included, rolls back and nothing of the group is
 * written. Plain SQL cannot raise an error of its own.
 */
export class CreateEventsGroupMoved1764600810000 implements MigrationInterface {
  name = 'CreateEventsGroupMoved1764600810000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create function events_group_moved() returns integer language plpgsql as $$
      begin
        raise exception 'a stream of the group was moved by another writer' using errcode = 'BL409';
      end $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop function events_group_moved()`);
  }
}
