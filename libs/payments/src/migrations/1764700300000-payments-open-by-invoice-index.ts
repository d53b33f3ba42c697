import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A collection try waits while another payment of its invoice is under way (one payment of an invoice at a time):
 * the collection engine's work query asks, per collection, for an open payment of its invoice, which this partial
 * index answers without reading the invoice's other payments.
 */
export class PaymentsOpenByInvoiceIndex1764700300000 implements MigrationInterface {
  name = 'PaymentsOpenByInvoiceIndex1764700300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`create index payments_open_by_invoice on payments (environment_id, invoice_id) where status in ('pending', 'requires_action')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop index payments_open_by_invoice`);
  }
}
