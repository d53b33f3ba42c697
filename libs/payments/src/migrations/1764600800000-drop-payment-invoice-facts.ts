import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A payment now reads its invoice from the invoice's stream, under the invoice's payment lock (where it already
 * re-read it to see a void): the copy of every invoice that `payments.read-model` kept only for that is gone, and
 * with it a third fold of every invoice event (live and in a rebuild) and a projection every invoice write waited for.
 */
export class DropPaymentInvoiceFacts1764600800000 implements MigrationInterface {
  name = 'DropPaymentInvoiceFacts1764600800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table payment_invoice_facts`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Recreated empty: no code fills it any more.
    await queryRunner.query(
      `create table payment_invoice_facts (environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id))`,
    );
  }
}
