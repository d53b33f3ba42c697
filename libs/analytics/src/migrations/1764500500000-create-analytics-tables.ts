import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The analytics read models (issue 28), all built by the `analytics.read-model` projection from published events:
 * - `analytics_ledger`: one row per money effect of an event (booked, voided, settled, paid, refunded), insert-only,
 *   with the business day it counts on and the instant it became known (the event's `occurred_at`), so any figure
 *   "as of" an instant is a sum over the rows known by then;
 * - `analytics_mrr_changes`: a subscription's MRR after each event that changed it, from when (`at`) and known since when
 *   (`known_at`, the event's time), insert-only;
 * - folded states the projection needs to work those out (invoices, payments, subscriptions, prices).
 */
export class CreateAnalyticsTables1764500500000 implements MigrationInterface {
  name = 'CreateAnalyticsTables1764500500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table analytics_ledger (
        environment_id uuid not null,
        event_id uuid not null,
        invoice_id uuid,
        currency text not null,
        day date not null,
        known_at timestamptz not null,
        invoiced bigint not null default 0,
        tax bigint not null default 0,
        discounts bigint not null default 0,
        credit_notes bigint not null default 0,
        collected bigint not null default 0,
        receivable bigint not null default 0,
        primary key (environment_id, event_id)
      )`);
    await queryRunner.query(`create index analytics_ledger_day on analytics_ledger (environment_id, currency, day)`);
    await queryRunner.query(`create index analytics_ledger_invoice on analytics_ledger (environment_id, invoice_id) where receivable <> 0`);
    await queryRunner.query(`
      create table analytics_mrr_changes (
        environment_id uuid not null,
        event_id uuid not null,
        position bigint not null,
        subscription_id uuid not null,
        customer_key text not null,
        currency text not null,
        at timestamptz not null,
        known_at timestamptz not null,
        mrr bigint not null,
        primary key (environment_id, event_id)
      )`);
    await queryRunner.query(`create index analytics_mrr_changes_at on analytics_mrr_changes (environment_id, currency, at)`);
    for (const table of ['analytics_invoices', 'analytics_payments', 'analytics_subscriptions', 'analytics_prices']) {
      await queryRunner.query(`create table ${table} (environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id))`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'analytics_prices',
      'analytics_subscriptions',
      'analytics_payments',
      'analytics_invoices',
      'analytics_mrr_changes',
      'analytics_ledger',
    ]) {
      await queryRunner.query(`drop table ${table}`);
    }
  }
}
