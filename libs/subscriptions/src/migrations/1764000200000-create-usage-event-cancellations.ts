import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `usage_event_cancellations`: the usage events that no longer count, one row
 * per cancelled event, written in the transaction that appends its
 * UsageEventCancelled to the subscription's stream. `usage_events` stays
 * append-only (what was recorded is never rewritten); aggregation leaves out
 * the events listed here. Append-only too: a cancellation is never undone.
 */
export class CreateUsageEventCancellations1764000200000 implements MigrationInterface {
  name = 'CreateUsageEventCancellations1764000200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table usage_event_cancellations (
        environment_id uuid not null,
        id text not null,
        cancelled_at timestamptz not null,
        primary key (environment_id, id),
        foreign key (environment_id, id) references usage_events (environment_id, id)
      )`);
    await queryRunner.query(`
      create function usage_event_cancellations_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'usage_event_cancellations is append-only: % refused', tg_op using errcode = 'restrict_violation';
      end $$`);
    await queryRunner.query(`
      create trigger usage_event_cancellations_append_only before update or delete on usage_event_cancellations
      for each row execute function usage_event_cancellations_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table usage_event_cancellations`);
    await queryRunner.query(`drop function usage_event_cancellations_append_only`);
  }
}
