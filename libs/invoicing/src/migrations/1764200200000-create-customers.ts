import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The `invoicing.customers` read model: one row per customer stream, with the
 * columns GET /customers filters and orders on, the state (token included:
 * the write side's own table, never answered as such) and the customer as
 * invoices name it (`invoice_customer`), which draft invoices show at read time.
 */
export class CreateCustomers1764200200000 implements MigrationInterface {
  name = 'CreateCustomers1764200200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table customers (
        environment_id uuid not null,
        id uuid not null,
        handle text not null,
        email text,
        status text not null,
        created_at timestamptz not null,
        version integer not null,
        state jsonb not null,
        invoice_customer jsonb not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index customers_created on customers (environment_id, created_at, id)`);
    await queryRunner.query(`create index customers_handle on customers (environment_id, handle collate "C", id)`);
    await queryRunner.query(`create index customers_email on customers (environment_id, email)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table customers`);
  }
}
