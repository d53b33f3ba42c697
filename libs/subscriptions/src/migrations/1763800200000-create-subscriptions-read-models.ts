import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The subscriptions context's tables:
 * - `subscriptions`: the read model (state as folded, so GET renders item
 *   periods and billAt at the environment's now) and `next_work_at`, when
 *   the billing engine next has something to do for the subscription;
 * - `subscription_catalog_prices` / `_products`: what the catalog's events
 *   say about prices and products, and `subscription_tax_codes` what
 *   invoicing's say about tax codes, folded here (contexts share events,
 *   never tables): the facts a subscription is checked against and priced with;
 * - `subscription_handle_sequences`: the SUB-000001 counter per environment.
 */
export class CreateSubscriptionsReadModels1763800200000 implements MigrationInterface {
  name = 'CreateSubscriptionsReadModels1763800200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table subscriptions (
        environment_id uuid not null,
        id uuid not null,
        handle text not null,
        status text not null,
        customer_id text,
        created_at timestamptz not null,
        version integer not null,
        state jsonb not null,
        next_work_at timestamptz,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index subscriptions_newest_first on subscriptions (environment_id, created_at desc, id desc)`);
    await queryRunner.query(`create index subscriptions_work on subscriptions (next_work_at) where next_work_at is not null`);
    await queryRunner.query(`
      create table subscription_catalog_prices (
        environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id)
      )`);
    await queryRunner.query(`
      create table subscription_catalog_products (
        environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id)
      )`);
    await queryRunner.query(`
      create table subscription_tax_codes (
        environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id)
      )`);
    await queryRunner.query(`create table subscription_handle_sequences (environment_id uuid primary key, last bigint not null)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `drop table subscription_handle_sequences, subscription_tax_codes, subscription_catalog_products, subscription_catalog_prices, subscriptions`,
    );
  }
}
