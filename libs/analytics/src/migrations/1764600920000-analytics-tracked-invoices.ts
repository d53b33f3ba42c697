import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `analytics_invoices.state` keeps what analytics uses of an invoice (`TrackedInvoice`) instead of invoicing's whole
 * state. Each stored row becomes what the new fold would have made of the same events, in place: the fields it keeps
 * are invoicing's (same names, same values), the totals of an invoice never booked (no handle) are 0 and `lineDiscounts` is the sum of its lines'
 * discounts (for a booked or void invoice, of the lines as booked: its state's lines are those). Only rows of the old
 * shape (with `lines`) are converted, so running it again changes nothing. Down: the old fold
 * cannot be recovered from the new rows, so the projection's tables are emptied and its checkpoint removed, and it
 * rebuilds from the log on its next run.
 */
export class AnalyticsTrackedInvoices1764600920000 implements MigrationInterface {
  name = 'AnalyticsTrackedInvoices1764600920000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `update analytics_invoices set state = jsonb_build_object(
         'status', state->'status', 'id', state->'id', 'type', state->'type', 'handle', state->'handle',
         'date', state->'date', 'dueDate', state->'dueDate', 'currency', state->'currency',
         'customerId', coalesce(state->'customerId', 'null'::jsonb),
         'customer', jsonb_build_object('name', coalesce(state#>'{customer,name}', 'null'::jsonb)),
         'totalInclVat', case when state->>'handle' is null then 0 else (state->>'totalInclVat')::bigint end,
         'totalVat', case when state->>'handle' is null then 0 else (state->>'totalVat')::bigint end,
         'lineDiscounts', (select coalesce(sum((line->>'discountAmount')::bigint), 0) from jsonb_array_elements(state->'lines') line),
         'settledAmount', (state->>'settledAmount')::bigint)
       where state ? 'lines' and state->>'status' <> 'none'`,
    );
    // The new fold keeps no row for a stream without its InvoiceCreated.
    await queryRunner.query(`delete from analytics_invoices where state->>'status' = 'none'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `truncate analytics_ledger, analytics_mrr_changes, analytics_invoices, analytics_payments, analytics_subscriptions, analytics_prices, analytics_customers`,
    );
    await queryRunner.query(`delete from projection_checkpoints where name = 'analytics.read-model'`);
  }
}
