import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `idempotency_keys.transaction_id`: the transaction that stored the answer, which is the one that appended the
 * request's events (they commit together). A replayed answer waits for the read models of what that transaction
 * wrote, as the first answer did (issue 41 #11). Rows stored before have none: their replays wait for nothing.
 */
export class AddIdempotencyKeysTransactionId1764700100000 implements MigrationInterface {
  name = 'AddIdempotencyKeysTransactionId1764700100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table idempotency_keys add column transaction_id xid8`);
    await queryRunner.query(`alter table idempotency_keys alter column transaction_id set default pg_current_xact_id()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table idempotency_keys drop column transaction_id`);
  }
}
