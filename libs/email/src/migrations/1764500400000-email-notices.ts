import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payment-failed notice and the trial-will-end notice: two more kinds of delivery. A trial notice is about a
 * subscription, not an invoice, so `invoice_id` may be null and `subscription_id` names the subscription.
 */
export class EmailNotices1764500400000 implements MigrationInterface {
  name = 'EmailNotices1764500400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table email_deliveries drop constraint email_deliveries_kind_check`);
    await queryRunner.query(
      `alter table email_deliveries add constraint email_deliveries_kind_check
         check (kind in ('invoice', 'credit_note', 'receipt', 'payment_failed', 'trial_will_end'))`,
    );
    await queryRunner.query(`alter table email_deliveries alter column invoice_id drop not null`);
    await queryRunner.query(`alter table email_deliveries add column subscription_id uuid`);
    await queryRunner.query(
      `alter table email_deliveries add constraint email_deliveries_about_check check (invoice_id is not null or subscription_id is not null)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`delete from email_deliveries where kind in ('payment_failed', 'trial_will_end')`);
    await queryRunner.query(`alter table email_deliveries drop constraint email_deliveries_about_check`);
    await queryRunner.query(`alter table email_deliveries drop column subscription_id`);
    await queryRunner.query(`alter table email_deliveries alter column invoice_id set not null`);
    await queryRunner.query(`alter table email_deliveries drop constraint email_deliveries_kind_check`);
    await queryRunner.query(`alter table email_deliveries add constraint email_deliveries_kind_check check (kind in ('invoice', 'credit_note', 'receipt'))`);
  }
}
