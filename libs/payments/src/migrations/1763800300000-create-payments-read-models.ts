import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payments context's read models: payments (with the columns GET
 * /payments filters and orders on), payment providers (without their
 * credentials, not even encrypted: charges read those from the provider's
 * stream), and what invoicing's events say about each invoice (folded here:
 * contexts share events, never tables).
 */
export class CreatePaymentsReadModels1763800300000 implements MigrationInterface {
  name = 'CreatePaymentsReadModels1763800300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table payments (
        environment_id uuid not null,
        id uuid not null,
        invoice_id uuid not null,
        customer_id text not null,
        provider text not null,
        currency text not null,
        amount bigint not null,
        status text not null,
        created_at timestamptz not null,
        version integer not null,
        state jsonb not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index payments_by_created on payments (environment_id, created_at, id)`);
    await queryRunner.query(`create index payments_by_amount on payments (environment_id, amount, id)`);
    await queryRunner.query(`create index payments_pending on payments (created_at) where status = 'pending'`);
    await queryRunner.query(`
      create table payment_providers (
        environment_id uuid not null, id uuid not null, name text not null, version integer not null, state jsonb not null,
        primary key (environment_id, id), unique (environment_id, name)
      )`);
    await queryRunner.query(`
      create table payment_collections (
        environment_id uuid not null, id uuid not null, invoice_id uuid not null, status text not null,
        next_attempt_at timestamptz, state jsonb not null, primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index payment_collections_work on payment_collections (next_attempt_at) where status in ('due', 'attempting')`);
    await queryRunner.query(`
      create table payment_invoice_facts (
        environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table payment_invoice_facts, payment_collections, payment_providers, payments`);
  }
}
