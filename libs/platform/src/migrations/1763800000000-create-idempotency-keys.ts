import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys with the response each one answered. A row is written in
 * the same transaction as the events of its request, so the two exist
 * together or not at all. `expires_at` bounds its life; the worker purges
 * expired rows, and an expired row counts as absent until then.
 */
export class CreateIdempotencyKeys1763800000000 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table idempotency_keys (
        environment_id uuid not null,
        subject text not null,
        key text not null,
        fingerprint text not null,
        method text not null,
        path text not null,
        status smallint not null,
        headers jsonb not null,
        body text not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        primary key (environment_id, subject, key)
      )`);
    await queryRunner.query(`create index idempotency_keys_expiry on idempotency_keys (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table idempotency_keys`);
  }
}
