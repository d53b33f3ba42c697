import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tables of the e-mail context.
 * - `email_deliveries`: the outbox, one row per (causing event, recipient) (its id is derived from both), inserted by
 *   the outbox reactor with its checkpoint and claimed with leases by the dispatchers.
 */
export class CreateEmailTables1764500000000 implements MigrationInterface {
  name = 'CreateEmailTables1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table email_deliveries (
        environment_id uuid not null,
        id uuid not null,
        seq bigint generated always as identity,
        kind text not null check (kind in ('invoice', 'credit_note', 'receipt')),
        event_id uuid not null,
        invoice_id uuid not null,
        payment_id uuid,
        recipient text not null,
        bcc text,
        reply_to text,
        message_id text not null,
        status text not null check (status in ('queued', 'sent', 'failed')),
        attempts integer not null default 0,
        next_attempt_at timestamptz,
        deadline_at timestamptz not null,
        lease_expires_at timestamptz,
        lease_token uuid,
        last_reply text,
        created_at timestamptz not null,
        sent_at timestamptz,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index email_deliveries_due on email_deliveries (next_attempt_at) where status = 'queued'`);
    await queryRunner.query(`create index email_deliveries_by_invoice on email_deliveries (environment_id, invoice_id, seq)`);
    await queryRunner.query(`create index email_deliveries_listing on email_deliveries (environment_id, seq)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table email_deliveries`);
  }
}
