import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test clocks: an environment with a row lives at `now` (frozen) until it is
 * advanced again; an environment without one follows the service's clock.
 * Written only by `POST /test-clock/advance` (TEST_CLOCKS=true).
 */
export class CreateEnvironmentClocks1763800100000 implements MigrationInterface {
  name = 'CreateEnvironmentClocks1763800100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table environment_clocks (
        environment_id uuid primary key,
        now timestamptz not null,
        updated_at timestamptz not null
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table environment_clocks`);
  }
}
