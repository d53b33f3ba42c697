import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event log and the bookkeeping around it.
 * - `streams` holds each stream's current version: the row that optimistic
 *   concurrency is decided on.
 * - `events` is append-only; `transaction_id` (xid8) plus `global_position`
 *   give subscribers an order that never skips a late-committing transaction.
 * - `projection_checkpoints` records how far each subscriber has read.
 */
export class CreateEventStore1763700000000 implements MigrationInterface {
  name = 'CreateEventStore1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table streams (
        environment_id uuid not null,
        stream_type text not null,
        stream_id uuid not null,
        version integer not null,
        primary key (environment_id, stream_type, stream_id)
      )`);
    await queryRunner.query(`
      create table events (
        global_position bigint generated always as identity primary key,
        transaction_id xid8 not null default pg_current_xact_id(),
        event_id uuid not null unique,
        environment_id uuid not null,
        stream_type text not null,
        stream_id uuid not null,
        stream_version integer not null,
        event_type text not null,
        schema_version integer not null,
        data jsonb not null,
        metadata jsonb not null,
        occurred_at timestamptz not null,
        unique (environment_id, stream_type, stream_id, stream_version)
      )`);
    await queryRunner.query(`create index events_transaction_order on events (transaction_id, global_position)`);
    await queryRunner.query(`
      create table projection_checkpoints (
        name text primary key,
        transaction_id xid8 not null default '0',
        global_position bigint not null default 0,
        updated_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table projection_checkpoints`);
    await queryRunner.query(`drop table events`);
    await queryRunner.query(`drop table streams`);
  }
}
