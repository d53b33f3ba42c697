import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `customer_balance_transactions`: one row per entry of a customer's credit
 * balance ledger (a CustomerBalanceAdjusted event of the customer's stream),
 * written once and never changed; `position` is the event's log position, the
 * keyset of GET /customers/{id}/balance-transactions (newest first).
 */
export class CreateCustomerBalanceTransactions1764400100000 implements MigrationInterface {
  name = 'CreateCustomerBalanceTransactions1764400100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table customer_balance_transactions (
        environment_id uuid not null,
        id uuid not null,
        customer_id uuid not null,
        position bigint not null,
        view jsonb not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index customer_balance_transactions_customer on customer_balance_transactions (environment_id, customer_id, position)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table customer_balance_transactions`);
  }
}
