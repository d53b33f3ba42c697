import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a payment's stream last changed, on the real clock (its latest event's
 * `recorded_at`): a payment still pending, or a refund still pending, is
 * looked up PAYMENTS_RESOLVE_AFTER_MS after it in real time, whatever its
 * environment's test clock says (`created_at` is the environment's time).
 * Rows written before it read their `created_at`.
 */
export class AddPaymentsRecordedAt1764100300000 implements MigrationInterface {
  name = 'AddPaymentsRecordedAt1764100300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table payments add column recorded_at timestamptz`);
    await queryRunner.query(`update payments set recorded_at = created_at`);
    await queryRunner.query(`alter table payments alter column recorded_at set not null`);
    await queryRunner.query(`create index payments_pending_recorded on payments (recorded_at) where status = 'pending' or refund_pending_since is not null`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table payments drop column recorded_at`);
  }
}
