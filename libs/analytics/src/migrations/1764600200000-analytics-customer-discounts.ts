import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MRR after customer records' discounts: `analytics_customers` (what the projection keeps of a customer: its time
 * zone and discounts), an index to find a customer's subscriptions, and one MRR change per subscription of an event
 * (a customer's discount event changes all of its subscriptions'). The projection now reads customer streams from
 * their beginning: its tables are emptied and its checkpoint removed, so it rebuilds from the log on its next run.
 */
export class AnalyticsCustomerDiscounts1764600200000 implements MigrationInterface {
  name = 'AnalyticsCustomerDiscounts1764600200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `create table analytics_customers (environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id))`,
    );
    await queryRunner.query(
      `create index analytics_subscriptions_customer on analytics_subscriptions (environment_id, (state #>> '{subscription,customerId}'))`,
    );
    await queryRunner.query(`alter table analytics_mrr_changes drop constraint analytics_mrr_changes_pkey`);
    await queryRunner.query(`alter table analytics_mrr_changes add primary key (environment_id, event_id, subscription_id)`);
    await this.rebuild(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.rebuild(queryRunner);
    await queryRunner.query(`alter table analytics_mrr_changes drop constraint analytics_mrr_changes_pkey`);
    await queryRunner.query(`alter table analytics_mrr_changes add primary key (environment_id, event_id)`);
    await queryRunner.query(`drop index analytics_subscriptions_customer`);
    await queryRunner.query(`drop table analytics_customers`);
  }

  private async rebuild(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'analytics_ledger',
      'analytics_mrr_changes',
      'analytics_invoices',
      'analytics_payments',
      'analytics_subscriptions',
      'analytics_prices',
    ]) {
      await queryRunner.query(`delete from ${table}`);
    }
    await queryRunner.query(`delete from projection_checkpoints where name = 'analytics.read-model'`);
  }
}
