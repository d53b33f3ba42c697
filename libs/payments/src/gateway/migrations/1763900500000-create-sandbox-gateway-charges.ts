import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sandbox gateway's own record of the charges it made (it stands for a
 * remote gateway, whose records outlive our process): one row per
 * (environment, reference), so a charge made just before a crash is still
 * found by lookup, and charging the same reference again answers the first
 * outcome. `request` (amount, currency, token) lets it refuse a reference
 * reused for another charge, as real gateways do with idempotency keys.
 */
export class CreateSandboxGatewayCharges1763900500000 implements MigrationInterface {
  name = 'CreateSandboxGatewayCharges1763900500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table sandbox_gateway_charges (
        environment_id uuid not null,
        reference text not null,
        outcome jsonb not null,
        request jsonb not null,
        created_at timestamptz not null default now(),
        primary key (environment_id, reference)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table sandbox_gateway_charges`);
  }
}
