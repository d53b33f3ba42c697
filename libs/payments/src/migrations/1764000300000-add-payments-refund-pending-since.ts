import { MigrationInterface, QueryRunner } from 'typeorm';

/** When a payment's oldest refund still waiting for the gateway's answer was asked for: the resolver's work list. */
export class AddPaymentsRefundPendingSince1764000300000 implements MigrationInterface {
  name = 'AddPaymentsRefundPendingSince1764000300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table payments add column refund_pending_since timestamptz`);
    await queryRunner.query(`create index payments_refund_pending on payments (refund_pending_since) where refund_pending_since is not null`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table payments drop column refund_pending_since`);
  }
}
