import { MigrationInterface, QueryRunner } from 'typeorm';

/** The sandbox gateway's own record of the refunds it made, one row per (environment, refund reference), like its charges. */
export class CreateSandboxGatewayRefunds1764000200000 implements MigrationInterface {
  name = 'CreateSandboxGatewayRefunds1764000200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table sandbox_gateway_refunds (
        environment_id uuid not null,
        reference text not null,
        charge_reference text not null,
        amount bigint not null,
        outcome jsonb not null,
        created_at timestamptz not null default now(),
        primary key (environment_id, reference)
      )`);
    await queryRunner.query(`create index sandbox_gateway_refunds_by_charge on sandbox_gateway_refunds (environment_id, charge_reference)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table sandbox_gateway_refunds`);
  }
}
