import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A `requires_action` payment (a Stripe 3-D Secure) awaits its lookup like a pending one: the resolver's query asks
 * for `status in ('pending', 'requires_action')`, which a partial index on `status = 'pending'` cannot serve.
 */
export class PaymentsAwaitingLookupIndexes1764500310000 implements MigrationInterface {
  name = 'PaymentsAwaitingLookupIndexes1764500310000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop index payments_pending`);
    await queryRunner.query(`drop index payments_pending_recorded`);
    await queryRunner.query(`create index payments_pending on payments (created_at) where status in ('pending', 'requires_action')`);
    await queryRunner.query(
      `create index payments_pending_recorded on payments (recorded_at)
        where status in ('pending', 'requires_action') or refund_pending_since is not null`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop index payments_pending`);
    await queryRunner.query(`drop index payments_pending_recorded`);
    await queryRunner.query(`create index payments_pending on payments (created_at) where status = 'pending'`);
    await queryRunner.query(`create index payments_pending_recorded on payments (recorded_at) where status = 'pending' or refund_pending_since is not null`);
  }
}
