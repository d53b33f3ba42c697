import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The billing engine claims an environment's due subscriptions in batches,
 * in (next_work_at, id) order after the last one it claimed
 * (`… for update skip locked limit N`): this index serves that claim without
 * sorting every due row of the environment for each batch.
 */
export class IndexSubscriptionsDueByEnvironment1764600300000 implements MigrationInterface {
  name = 'IndexSubscriptionsDueByEnvironment1764600300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`create index subscriptions_due on subscriptions (environment_id, next_work_at, id) where next_work_at is not null`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop index subscriptions_due`);
  }
}
