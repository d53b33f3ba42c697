import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `streams.transaction_id`: the transaction of the stream's last append. The log is read in (transaction id,
 * position) order, so an append by a transaction older than the stream's last one would sort before events it
 * follows (a transaction that took its id, e.g. with a row lock, then loaded the stream after a younger one had
 * appended and committed): readers would fold the stream out of order. An append claims the stream only from an
 * older or the same transaction; otherwise it is a version conflict, decided again on a fresh load (in a younger
 * transaction). Existing streams start at 0: no transaction is older.
 */
export class AddStreamsTransactionId1764600910000 implements MigrationInterface {
  name = 'AddStreamsTransactionId1764600910000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table streams add column transaction_id xid8 not null default '0'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table streams drop column transaction_id`);
  }
}
