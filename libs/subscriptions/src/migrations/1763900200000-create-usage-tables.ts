import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage billing's tables (subscriptions context):
 * - `usage_events`: the ingested usage events, append-only. Not in the event
 *   store: a batch of 1 000 is one multi-row insert here rather than 1 000
 *   domain events. The primary key (environment, client's event id) makes an
 *   id count once forever (`insert … on conflict do nothing`); a trigger
 *   refuses every update and delete, so what was billed is never rewritten.
 * - `billable_metrics`, `usage_settings`: read models of their streams.
 * - `subscription_price_versions`: every pricing a catalog price has had and
 *   when it took effect (folded from PriceCreated / PriceUpdated), so usage is
 *   rated at the price in force when it happened.
 */
export class CreateUsageTables1763900200000 implements MigrationInterface {
  name = 'CreateUsageTables1763900200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table usage_events (
        environment_id uuid not null,
        id text not null,
        subscription_id uuid not null,
        metric_code text not null,
        occurred_at timestamptz not null,
        properties jsonb not null,
        received_at timestamptz not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index usage_events_by_period on usage_events (environment_id, subscription_id, metric_code, occurred_at)`);
    await queryRunner.query(`
      create function usage_events_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'usage_events is append-only: % refused', tg_op using errcode = 'restrict_violation';
      end $$`);
    await queryRunner.query(`
      create trigger usage_events_append_only before update or delete on usage_events
      for each row execute function usage_events_append_only()`);
    await queryRunner.query(`
      create table billable_metrics (environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id))`);
    await queryRunner.query(`
      create table usage_settings (environment_id uuid not null, id uuid not null, state jsonb not null, primary key (environment_id, id))`);
    await queryRunner.query(`
      create table subscription_price_versions (
        environment_id uuid not null,
        price_id uuid not null,
        version integer not null,
        effective_at timestamptz not null,
        pricing jsonb not null,
        primary key (environment_id, price_id, version)
      )`);
    // The prices that exist already: their versions from the log (the projection adds the later ones).
    await queryRunner.query(`
      insert into subscription_price_versions (environment_id, price_id, version, effective_at, pricing)
      select environment_id, stream_id, stream_version, coalesce((data->>'createdAt')::timestamptz, (data->>'updatedAt')::timestamptz, occurred_at), data->'pricing'
        from events where stream_type = 'price' and event_type in ('PriceCreated', 'PriceUpdated') and data ? 'pricing'
      on conflict do nothing`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table subscription_price_versions, usage_settings, billable_metrics`);
    await queryRunner.query(`drop table usage_events`);
    await queryRunner.query(`drop function usage_events_append_only`);
  }
}
