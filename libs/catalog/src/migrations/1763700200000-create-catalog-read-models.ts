import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The catalog's read models, written only by the `catalog.read-model`
 * projection. `state` is the aggregate state folded from the events (so the
 * projection evolves it with the domain's own evolver), `view` the resource
 * as the API returns it. `position` is the global log position of the
 * creating event: the keyset for newest-first paging, unique and gap-tolerant.
 */
export class CreateCatalogReadModels1763700200000 implements MigrationInterface {
  name = 'CreateCatalogReadModels1763700200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table products (
        environment_id uuid not null,
        id uuid not null,
        position bigint not null,
        version integer not null,
        state jsonb not null,
        view jsonb not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index products_newest_first on products (environment_id, position desc)`);
    await queryRunner.query(`
      create table prices (
        environment_id uuid not null,
        id uuid not null,
        product_id uuid,
        archived boolean not null,
        position bigint not null,
        version integer not null,
        state jsonb not null,
        view jsonb not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index prices_newest_first on prices (environment_id, position desc)`);
    await queryRunner.query(`create index prices_by_product on prices (environment_id, product_id, position desc)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table prices`);
    await queryRunner.query(`drop table products`);
  }
}
