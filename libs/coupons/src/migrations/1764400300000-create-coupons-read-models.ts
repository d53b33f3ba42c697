import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The coupons' read models, written only by the `coupons.read-model`
 * projection: the folded state, the view, and the creating event's log
 * position (the keyset of newest-first paging).
 */
export class CreateCouponsReadModels1764400300000 implements MigrationInterface {
  name = 'CreateCouponsReadModels1764400300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['coupons', 'promotion_codes']) {
      await queryRunner.query(`
        create table ${table} (
          environment_id uuid not null,
          id uuid not null,
          position bigint not null,
          version integer not null,
          state jsonb not null,
          view jsonb not null,
          primary key (environment_id, id)
        )`);
      await queryRunner.query(`create index ${table}_newest_first on ${table} (environment_id, position desc)`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table promotion_codes`);
    await queryRunner.query(`drop table coupons`);
  }
}
