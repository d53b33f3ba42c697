import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invoicing read models (written only by the `invoicing.read-model` projection)
 * and the gapless invoice-number counters (written only by the booking handler,
 * inside the booking's transaction).
 * - `invoices`: one row per invoice with the columns the list filters and sorts
 *   on, plus `view`, the InvoiceDetail exactly as the API returns it.
 * - `tax_codes`: the tax-code register of each environment.
 * - `invoice_number_sequences`: the last number handed out per (environment, type).
 */
export class CreateInvoicingReadModels1763700100000 implements MigrationInterface {
  name = 'CreateInvoicingReadModels1763700100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table invoices (
        environment_id uuid not null,
        id uuid not null,
        status text not null,
        type text not null,
        settlement_status text not null,
        customer_id text not null,
        handle text,
        created_at timestamptz not null,
        version integer not null,
        view jsonb not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index invoices_newest_first on invoices (environment_id, created_at desc, id desc)`);
    await queryRunner.query(`create index invoices_by_customer on invoices (environment_id, customer_id, created_at desc, id desc)`);
    await queryRunner.query(`create unique index invoices_handle on invoices (environment_id, handle) where handle is not null`);
    await queryRunner.query(`
      create table tax_codes (
        environment_id uuid not null,
        code text not null,
        stream_id uuid not null,
        rate numeric(5, 4) not null,
        taxable boolean not null,
        version integer not null,
        view jsonb not null,
        primary key (environment_id, code)
      )`);
    await queryRunner.query(`
      create table invoice_number_sequences (
        environment_id uuid not null,
        type text not null,
        last bigint not null,
        primary key (environment_id, type)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table invoice_number_sequences`);
    await queryRunner.query(`drop table tax_codes`);
    await queryRunner.query(`drop table invoices`);
  }
}
